package io.mpshare.deviceplugin.driver;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Finds the running driver's user-space files the way its installer laid them out, with no list of file names:
 * <ol>
 *   <li>library folders: the folder of the NVML library this process loaded (when it did), the folders the dynamic
 *       loader's cache ({@code <root>/etc/ld.so.cache}) names for {@code libcuda.so} and {@code libnvidia-ml.so}, then
 *       the distributions' library folders and {@code usr/local/nvidia/lib64};</li>
 *   <li>libraries: every regular file {@code lib*.so.<driver version>} in those folders, and every symbolic link
 *       there that resolves to one (the sonames the installer or ldconfig made), bound at the link's own path;</li>
 *   <li>utilities: the driver's programs ({@link #UTILITIES}) wherever they are in {@code usr/bin}, {@code bin} and the
 *       {@code bin} folder beside a library folder ({@code /usr/local/nvidia/bin}): each copy, since one may be a
 *       wrapper that runs another (seen on a GPU host: {@code /usr/bin/nvidia-smi} a script that execs
 *       {@code /usr/local/nvidia/bin/nvidia-smi});</li>
 *   <li>firmware: {@code lib/firmware/nvidia/<driver version>} (GSP firmware), when there;</li>
 *   <li>device nodes: {@code dev/nvidia<minor>} of each GPU (NVML's minor number) and the control nodes present
 *       ({@link #CONTROL_NODES}).</li>
 * </ol>
 * A driver without {@code libcuda.so.<version>} or {@code libnvidia-ml.so.<version>}, or a GPU without its node, is
 * {@link Missing}, with where it looked: a container given that answer would start without a usable GPU.
 */
public final class DriverDiscovery {
    /** The driver's programs a container may use: NVIDIA's container toolkit mounts the same for "utility" and "compute". */
    public static final List<String> UTILITIES = List.of("nvidia-smi", "nvidia-debugdump", "nvidia-persistenced",
            "nvidia-cuda-mps-control", "nvidia-cuda-mps-server");
    /** Device nodes every GPU container needs, where the host has them. */
    public static final List<String> CONTROL_NODES = List.of("nvidiactl", "nvidia-uvm", "nvidia-uvm-tools", "nvidia-modeset");

    /** The outcome: the driver's files, or why they are not usable. */
    public sealed interface Result permits Found, Missing {}

    public record Found(DriverFiles files) implements Result {}

    public record Missing(String reason) implements Result {}

    private DriverDiscovery() {}

    /**
     * @param version      the running driver's version as NVML reports it ({@code 580.159.04})
     * @param minorByIndex each GPU's minor number ({@code /dev/nvidia<minor>}) by NVML index
     * @param loadedNvml   the NVML library this process loaded, as it sees it (from its memory map), if any
     */
    public static Result find(DriverRoots roots, String version, Map<Integer, Integer> minorByIndex, Optional<Path> loadedNvml) {
        try {
            List<Path> dirs = libraryFolders(roots, loadedNvml);
            var libraries = libraries(roots, dirs, version);
            for (String required : List.of("libcuda.so." + version, "libnvidia-ml.so." + version)) {
                if (libraries.stream().noneMatch(b -> b.containerPath().endsWith("/" + required)))
                    return new Missing("no " + required + " of the running driver under " + roots.seenDriverRoot() + " (looked in "
                            + dirs.stream().map(Path::toString).toList() + "): point --driver-root at the driver's root");
            }
            var nodes = new LinkedHashMap<Integer, DeviceNode>();
            for (var e : minorByIndex.entrySet()) {
                String name = "nvidia" + e.getValue();
                if (!Files.exists(roots.seenDevRoot().resolve("dev").resolve(name), LinkOption.NOFOLLOW_LINKS))
                    return new Missing("no device node dev/" + name + " of GPU " + e.getKey() + " under " + roots.seenDevRoot() + ": point --dev-root at it");
                nodes.put(e.getKey(), roots.node(name));
            }
            var control = new ArrayList<DeviceNode>();
            for (String name : CONTROL_NODES)
                if (Files.exists(roots.seenDevRoot().resolve("dev").resolve(name), LinkOption.NOFOLLOW_LINKS)) control.add(roots.node(name));
            return new Found(new DriverFiles(version, libraries, utilities(roots, dirs), firmware(roots, version), control, nodes));
        } catch (IOException e) {
            return new Missing("cannot read the driver's folders under " + roots.seenDriverRoot() + ": " + e.getMessage());
        }
    }

    /**
     * The driver's NVML library ({@code libnvidia-ml.so.1}) under the driver root as this process sees it, for a
     * process that runs in a pod with the host's driver mounted rather than given by NVIDIA's runtime.
     */
    public static Optional<Path> nvmlLibrary(DriverRoots roots) {
        try {
            for (Path d : libraryFolders(roots, Optional.empty())) {
                Path p = d.resolve("libnvidia-ml.so.1");
                if (Files.exists(p)) return Optional.of(p);
            }
        } catch (IOException e) {
            return Optional.empty();
        }
        return Optional.empty();
    }

    static List<Path> libraryFolders(DriverRoots roots, Optional<Path> loadedNvml) throws IOException {
        Path root = roots.seenDriverRoot();
        Set<Path> out = new LinkedHashSet<>();
        loadedNvml.map(Path::getParent).filter(p -> p.startsWith(root)).ifPresent(out::add);
        Path cache = root.resolve("etc/ld.so.cache");
        if (Files.isRegularFile(cache)) {
            for (LdCache.Entry e : LdCache.parse(Files.readAllBytes(cache))) {
                if (e.name().startsWith("libcuda.so.") || e.name().startsWith("libnvidia-ml.so."))
                    out.add(root.resolve(e.path().replaceFirst("^/+", "")).getParent());
            }
        }
        String multiarch = System.getProperty("os.arch").equals("aarch64") ? "aarch64-linux-gnu" : "x86_64-linux-gnu";
        for (String d : List.of("usr/lib/" + multiarch, "usr/lib64", "lib/" + multiarch, "lib64", "usr/lib", "usr/local/nvidia/lib64"))
            out.add(root.resolve(d));
        var real = new LinkedHashSet<Path>();
        var dirs = new ArrayList<Path>();
        for (Path d : out) if (Files.isDirectory(d) && real.add(d.toRealPath())) dirs.add(d);
        return dirs;
    }

    static List<Bind> libraries(DriverRoots roots, List<Path> dirs, String version) throws IOException {
        Pattern versioned = Pattern.compile("lib.+\\.so\\." + Pattern.quote(version));
        var out = new ArrayList<Bind>();
        for (Path dir : dirs) {
            List<Path> entries;
            try (Stream<Path> s = Files.list(dir)) {
                entries = s.sorted().toList();
            }
            var files = new LinkedHashSet<Path>();
            for (Path p : entries)
                if (versioned.matcher(p.getFileName().toString()).matches() && Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS)) files.add(p.toRealPath());
            for (Path p : entries)
                if (Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS) && files.contains(p.toRealPath())) add(out, roots.bind(p));
            for (Path p : entries)
                if (Files.isSymbolicLink(p) && Files.exists(p) && files.contains(p.toRealPath())) add(out, roots.bind(p));
        }
        return out;
    }

    private static void add(List<Bind> out, Bind b) {
        if (b != null) out.add(b);
    }

    static List<Bind> utilities(DriverRoots roots, List<Path> libraryDirs) throws IOException {
        Path root = roots.seenDriverRoot();
        var dirs = new LinkedHashSet<Path>(List.of(root.resolve("usr/bin"), root.resolve("bin")));
        for (Path d : libraryDirs) if (d.getParent() != null) dirs.add(d.getParent().resolve("bin"));
        var out = new ArrayList<Bind>();
        for (String name : UTILITIES) {
            for (Path d : dirs) { // every copy: /usr/bin/nvidia-smi may be a wrapper that runs /usr/local/nvidia/bin/nvidia-smi
                Path p = d.resolve(name);
                if (Files.isRegularFile(p) && Files.isExecutable(p)) add(out, roots.bind(p));
            }
        }
        return out;
    }

    static List<Bind> firmware(DriverRoots roots, String version) throws IOException {
        for (String d : List.of("lib/firmware/nvidia/", "usr/lib/firmware/nvidia/")) {
            Path p = roots.seenDriverRoot().resolve(d + version);
            Bind b = Files.isDirectory(p) ? roots.bind(p) : null;
            if (b != null) return List.of(b);
        }
        return List.of();
    }
}
