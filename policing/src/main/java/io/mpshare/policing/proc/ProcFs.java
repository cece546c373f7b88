package io.mpshare.policing.proc;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * Reads the few files of a {@code /proc} tree the policer needs. The root is configurable so tests
 * use a fake tree and a DaemonSet can mount the host's {@code /proc} elsewhere (e.g. {@code /host/proc});
 * with hostPID the container's own {@code /proc} is the host's.
 *
 * <p>Only what the kernel writes is read: the cgroup, the parent and the start time. Never a process's name or
 * command line, which the process itself chooses.
 *
 * <p>A process can exit between NVML's sample and the read: every method answers empty then, never throws.
 */
public final class ProcFs {
    /**
     * The unit of {@code starttime} in {@code /proc/<pid>/stat}: USER_HZ, which the kernel keeps at 100 for user space
     * on every architecture mpshare runs on (x86-64, arm64), whatever its internal tick rate.
     */
    static final long USER_HZ = 100;

    private final Path root;

    public ProcFs(Path root) { this.root = Objects.requireNonNull(root, "root"); }

    public static ProcFs host() { return new ProcFs(Path.of("/proc")); }

    public Path root() { return root; }

    /** Text of {@code /proc/<pid>/cgroup}. */
    public Optional<String> cgroup(long pid) { return read(pid, "cgroup"); }

    /** The parent PID from {@code /proc/<pid>/stat} (field 4). */
    public Optional<Long> parentPid(long pid) { return statField(pid, 4); }

    /**
     * When the process started, wall-clock: {@code starttime} (field 22 of {@code /proc/<pid>/stat}, clock ticks since
     * boot) after {@code btime} of {@code /proc/stat} (boot, whole seconds). Never later than the true start, and at most
     * about a second earlier: the boot time is cut to whole seconds (and follows steps of the wall clock). Empty when
     * the process is gone.
     */
    public Optional<Instant> startedAt(long pid) {
        Optional<Long> ticks = statField(pid, 22);
        if (ticks.isEmpty()) return Optional.empty();
        return bootTime().map(boot -> boot.plus(Duration.ofMillis(ticks.get() * 1000 / USER_HZ)));
    }

    /** {@code btime} of {@code /proc/stat}: when the machine booted. */
    Optional<Instant> bootTime() {
        try {
            for (String line : Files.readAllLines(root.resolve("stat"), StandardCharsets.UTF_8)) {
                if (line.startsWith("btime ")) return Optional.of(Instant.ofEpochSecond(Long.parseLong(line.substring(6).strip())));
            }
            return Optional.empty();
        } catch (IOException | UncheckedIOException | NumberFormatException e) {
            return Optional.empty();
        }
    }

    /**
     * Field {@code n} (1-based, as proc(5) numbers them) of {@code /proc/<pid>/stat} as a number. The fields are counted
     * after the last ')', so a command name with spaces or parentheses (field 2, the process's own choice) cannot shift
     * them.
     */
    private Optional<Long> statField(long pid, int n) {
        return read(pid, "stat").flatMap(s -> {
            int close = s.lastIndexOf(')');
            if (close < 0) return Optional.empty();
            String[] f = s.substring(close + 1).strip().split("\\s+");
            int i = n - 3; // f[0] is field 3 (state)
            try {
                return f.length > i ? Optional.of(Long.parseLong(f[i])) : Optional.empty();
            } catch (NumberFormatException e) {
                return Optional.empty();
            }
        });
    }

    private Optional<String> read(long pid, String file) {
        try {
            return Optional.of(Files.readString(root.resolve(Long.toString(pid)).resolve(file), StandardCharsets.UTF_8));
        } catch (IOException | UncheckedIOException e) {
            return Optional.empty(); // gone (NoSuchFileException, ESRCH) or unreadable
        }
    }
}
