package io.mpshare.policing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;

/**
 * A fake {@code /proc} tree as the kernel writes it: the boot time in {@code stat}; per PID a {@code cgroup}, a
 * {@code cmdline} (the process's own choice) and a {@code stat} with its parent, its {@code comm} (argv[0]'s basename
 * cut to 15 characters) and its start time in clock ticks since boot.
 */
final class FakeProc {
    static final Instant BOOT = Instant.parse("2026-11-30T00:00:00Z");
    /** When processes start unless a test says otherwise: long before any report of the tests. */
    static final Instant EARLY = BOOT.plus(Duration.ofHours(1));

    final Path root;

    FakeProc(Path root) {
        this.root = root;
        write(root.resolve("stat"), "cpu  1 2 3 4\nbtime " + BOOT.getEpochSecond() + "\nprocesses 9000\n");
    }

    /** A pod's container process, cgroup v2 + systemd driver + containerd. */
    FakeProc podProcess(long pid, String podUid, String containerId) {
        return podProcess(pid, podUid, containerId, "python3\0train.py\0", 1, EARLY);
    }

    FakeProc podProcess(long pid, String podUid, String containerId, String cmdline, long ppid, Instant started) {
        return process(pid, "0::/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod" + podUid.replace('-', '_')
                + ".slice/cri-containerd-" + containerId + ".scope\n", cmdline, ppid, started);
    }

    FakeProc hostProcess(long pid, String argv0) { return hostProcess(pid, argv0, 1, EARLY); }

    FakeProc hostProcess(long pid, String argv0, long ppid, Instant started) {
        return process(pid, "0::/user.slice/user-1000.slice/session-3.scope\n", argv0 + "\0", ppid, started);
    }

    FakeProc process(long pid, String cgroup, String cmdline) { return process(pid, cgroup, cmdline, 1, EARLY); }

    FakeProc process(long pid, String cgroup, String cmdline, long ppid, Instant started) {
        Path dir = root.resolve(Long.toString(pid));
        String argv0 = cmdline.split("\0", 2)[0];
        String comm = argv0.substring(argv0.lastIndexOf('/') + 1);
        comm = comm.substring(0, Math.min(15, comm.length()));
        long ticks = Duration.between(BOOT, started).toMillis() / 10;
        write(dir.resolve("cgroup"), cgroup);
        write(dir.resolve("cmdline"), cmdline);
        write(dir.resolve("comm"), comm + "\n");
        write(dir.resolve("stat"), pid + " (" + comm + ") S " + ppid + " " + pid + " " + pid + " 0 -1 4194560 100 0 0 0 5 2 0 0 20 0 1 0 "
                + ticks + " 10000000 500 18446744073709551615\n");
        return this;
    }

    private static void write(Path file, String text) {
        try {
            Files.createDirectories(file.getParent());
            Files.writeString(file, text);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
