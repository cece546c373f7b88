package io.mpshare.e2e.k8s;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * Where the control-plane binaries are. In order: {@code $KUBEBUILDER_ASSETS} (envtest's convention: a folder with
 * kube-apiserver, kube-scheduler, kube-controller-manager, and optionally etcd); else the xz archives of
 * {@code $MPSHARE_K8S_XZ} or of a {@code shared/k8s} folder beside the checkout, unpacked once with their own
 * {@code unpack.sh} (it checks SHA256SUMS) into {@code ~/.cache/mpshare/k8s-v1.31.14}. etcd comes from the assets
 * folder or {@code PATH}; when it is missing and we run as root, {@code bin/ci-deps} installs it once.
 */
public record Binaries(Path apiserver, Path controllerManager, Path scheduler, Optional<Path> kubelet, Path etcd) {
    public static final String ENV_ASSETS = "KUBEBUILDER_ASSETS";
    public static final String ENV_XZ = "MPSHARE_K8S_XZ";
    public static final String VERSION = "v1.31.14";
    static final List<String> KUBE = List.of("kube-apiserver", "kube-controller-manager", "kube-scheduler");

    /** Found, or why not: one line that says how to get them. */
    public sealed interface Lookup permits Found, Missing {}
    public record Found(Binaries binaries) implements Lookup {}
    public record Missing(String why) implements Lookup {}

    /** Looks in the environment given (System.getenv() normally); {@code repoRoot} is the checkout. */
    public static Lookup locate(Map<String, String> env, Path repoRoot) {
        Optional<Path> kubeDir;
        String assets = env.get(ENV_ASSETS);
        if (assets != null && !assets.isBlank()) {
            Path dir = Path.of(assets);
            for (String b : KUBE)
                if (!Files.isExecutable(dir.resolve(b))) return new Missing(ENV_ASSETS + "=" + dir + " has no executable " + b);
            kubeDir = Optional.of(dir);
        } else {
            Optional<Path> xz = xzFolder(env, repoRoot);
            if (xz.isEmpty()) return new Missing(howToGet("no control-plane binaries found"));
            try {
                kubeDir = Optional.of(unpack(xz.get(), cacheDir(env)));
            } catch (IOException e) {
                return new Missing(howToGet("cannot unpack " + xz.get() + ": " + e.getMessage()));
            }
        }
        Path dir = kubeDir.get();
        Optional<Path> etcd = Files.isExecutable(dir.resolve("etcd")) ? Optional.of(dir.resolve("etcd")) : onPath("etcd", env);
        if (etcd.isEmpty() && isRoot()) {
            installDeps(repoRoot);
            etcd = onPath("etcd", env);
        }
        if (etcd.isEmpty())
            return new Missing("no etcd on PATH or in the binaries folder: install Debian's etcd-server (as root: bin/ci-deps, or apt-get install -y etcd-server)");
        Path kubelet = dir.resolve("kubelet");
        return new Found(new Binaries(dir.resolve("kube-apiserver"), dir.resolve("kube-controller-manager"), dir.resolve("kube-scheduler"),
                Files.isExecutable(kubelet) ? Optional.of(kubelet) : Optional.empty(), etcd.get()));
    }

    static String howToGet(String what) {
        return what + ": set " + ENV_ASSETS + " to a folder with kube-apiserver, kube-controller-manager, kube-scheduler " + VERSION
                + " (envtest's layout), or " + ENV_XZ + " to a folder of their .xz archives with unpack.sh and SHA256SUMS (unpack.sh DIR writes them)";
    }

    private static Optional<Path> xzFolder(Map<String, String> env, Path repoRoot) {
        List<Path> candidates = new ArrayList<>();
        String xz = env.get(ENV_XZ);
        if (xz != null && !xz.isBlank()) candidates.add(Path.of(xz));
        Path parent = repoRoot.toAbsolutePath().normalize().getParent();
        if (parent != null) candidates.add(parent.resolve("shared/k8s"));
        return candidates.stream().filter(d -> Files.isRegularFile(d.resolve("unpack.sh")) && Files.isRegularFile(d.resolve("SHA256SUMS"))).findFirst();
    }

    static Path cacheDir(Map<String, String> env) {
        String home = env.getOrDefault("HOME", System.getProperty("user.home"));
        return Path.of(home, ".cache", "mpshare", "k8s-" + VERSION);
    }

    /** Runs the archive's own unpack.sh into {@code dest} unless every binary is already there. */
    private static Path unpack(Path xzDir, Path dest) throws IOException {
        if (KUBE.stream().allMatch(b -> Files.isExecutable(dest.resolve(b)))) return dest;
        Files.createDirectories(dest);
        Path log = Files.createTempFile("mpshare-unpack", ".log");
        try {
            Process p = new ProcessBuilder("sh", xzDir.resolve("unpack.sh").toString(), dest.toString())
                    .redirectErrorStream(true).redirectOutput(log.toFile()).start();
            if (!p.waitFor(300, TimeUnit.SECONDS)) { p.destroyForcibly(); throw new IOException("unpack.sh took over 300 s"); }
            if (p.exitValue() != 0) throw new IOException("unpack.sh failed (exit " + p.exitValue() + "): " + Files.readString(log).strip());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while unpacking", e);
        } finally {
            Files.deleteIfExists(log);
        }
        return dest;
    }

    private static void installDeps(Path repoRoot) {
        Path script = repoRoot.resolve("bin/ci-deps");
        if (!Files.isExecutable(script)) return;
        try {
            Process p = new ProcessBuilder(script.toString()).inheritIO().start();
            p.waitFor(600, TimeUnit.SECONDS);
        } catch (IOException e) {
            // etcd stays missing; the caller says so
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    static Optional<Path> onPath(String name, Map<String, String> env) {
        String path = env.getOrDefault("PATH", "/usr/local/bin:/usr/bin:/bin");
        for (String d : path.split(":")) {
            if (d.isEmpty()) continue;
            Path p = Path.of(d, name);
            if (Files.isExecutable(p)) return Optional.of(p);
        }
        return Optional.empty();
    }

    private static boolean isRoot() {
        return "root".equals(System.getProperty("user.name"));
    }
}
