package io.mpshare.e2e.node;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * What the tier changes on the machine, and how it is put back: the sysctls kubelet sets at start, mounts under the
 * tier's folders, processes found by a command-line argument only ours carry (containerd's shims name our socket), and
 * kubelet's pod cgroups.
 */
final class Host {
    /** kubelet sets these at start (vm.overcommit_memory=1, kernel.panic=10, kernel.panic_on_oops=1). */
    static final List<String> KUBELET_SYSCTLS = List.of("vm/overcommit_memory", "kernel/panic", "kernel/panic_on_oops");
    private static final Path CGROUP_ROOT = Path.of("/sys/fs/cgroup");

    private Host() {}

    static Map<String, String> readSysctls() throws IOException {
        Map<String, String> out = new LinkedHashMap<>();
        for (String k : KUBELET_SYSCTLS) out.put(k, Files.readString(Path.of("/proc/sys", k)).strip());
        return out;
    }

    static void writeSysctls(Map<String, String> values) throws IOException {
        for (var e : values.entrySet()) Files.writeString(Path.of("/proc/sys", e.getKey()), e.getValue() + "\n");
    }

    /** PIDs whose command line has {@code arg} as one of its arguments. */
    static List<Long> pidsWithArg(String arg) {
        List<Long> out = new ArrayList<>();
        try (Stream<Path> procs = Files.list(Path.of("/proc"))) {
            for (Path p : procs.toList()) {
                String n = p.getFileName().toString();
                if (!n.chars().allMatch(Character::isDigit)) continue;
                try {
                    String cmd = new String(Files.readAllBytes(p.resolve("cmdline")), StandardCharsets.UTF_8);
                    if (List.of(cmd.split("\0")).contains(arg)) out.add(Long.parseLong(n));
                } catch (IOException gone) {
                    // the process ended while we looked
                }
            }
        } catch (IOException e) {
            throw new IllegalStateException("cannot list /proc: " + e.getMessage(), e);
        }
        return out;
    }

    /** SIGKILL every process in kubelet's pod cgroups ({@code kubepods} under each cgroup v1 controller or v2). */
    static int killPodProcesses() throws IOException {
        int n = 0;
        for (Path top : kubepodsDirs()) {
            for (Path procs : tree(top).stream().map(d -> d.resolve("cgroup.procs")).toList()) {
                List<String> pids;
                try {
                    pids = Files.readAllLines(procs);
                } catch (IOException gone) {
                    continue; // the cgroup went away while we looked
                }
                for (String line : pids) {
                    if (line.isBlank()) continue;
                    ProcessHandle.of(Long.parseLong(line.strip())).ifPresent(ProcessHandle::destroyForcibly);
                    n++;
                }
            }
        }
        return n;
    }

    /** The folders at and under {@code top}, deepest first; folders that vanish meanwhile are left out. */
    private static List<Path> tree(Path top) {
        List<Path> out = new ArrayList<>();
        try (Stream<Path> walk = Files.walk(top)) {
            walk.filter(Files::isDirectory).forEach(out::add);
        } catch (IOException | java.io.UncheckedIOException vanished) {
            // a cgroup was removed during the walk: what we have is enough for this pass
        }
        out.sort(Comparator.reverseOrder());
        return out;
    }

    /** Removes kubelet's (empty) pod cgroups, deepest first. */
    static void removePodCgroups() throws IOException {
        for (Path top : kubepodsDirs()) {
            for (Path d : tree(top)) {
                try {
                    Files.deleteIfExists(d);
                } catch (IOException busy) {
                    System.err.println("e2e/node: cgroup " + d + " not removed: " + busy.getMessage());
                }
            }
        }
    }

    static List<Path> kubepodsDirs() throws IOException {
        List<Path> out = new ArrayList<>();
        if (Files.isDirectory(CGROUP_ROOT.resolve("kubepods"))) out.add(CGROUP_ROOT.resolve("kubepods"));
        try (Stream<Path> ctrls = Files.list(CGROUP_ROOT)) {
            for (Path c : ctrls.toList()) if (Files.isDirectory(c.resolve("kubepods"))) out.add(c.resolve("kubepods"));
        }
        return out;
    }

    /** Lazily unmounts every mount point at or under {@code prefix}, deepest first. */
    static void unmountUnder(Path prefix) throws IOException, InterruptedException {
        List<String> points = mountsUnder(prefix);
        points.sort(Comparator.comparingInt(String::length).reversed());
        for (String mp : points) {
            try {
                run(List.of("umount", "-l", mp), 10);
            } catch (IOException failed) {
                // A shim that is still exiting unmounts its own rootfs: gone between the read and the umount is done.
                if (mountsUnder(Path.of(mp)).contains(mp)) throw failed;
            }
        }
    }

    private static List<String> mountsUnder(Path prefix) throws IOException {
        String p = prefix.toString();
        List<String> points = new ArrayList<>();
        for (String line : Files.readAllLines(Path.of("/proc/self/mountinfo"))) {
            String mp = line.split(" ")[4].replace("\\040", " ");
            if (mp.equals(p) || mp.startsWith(p + "/")) points.add(mp);
        }
        return points;
    }

    /** Runs a short command; returns its output; throws with the output when it fails. */
    static String run(List<String> command, int timeoutSeconds) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        byte[] out = p.getInputStream().readAllBytes();
        if (!p.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new IOException(String.join(" ", command) + ": no answer in " + timeoutSeconds + " s");
        }
        String text = new String(out, StandardCharsets.UTF_8);
        if (p.exitValue() != 0) throw new IOException(String.join(" ", command) + " exited " + p.exitValue() + ": " + text.strip());
        return text;
    }
}
