package io.mpshare.policing.proc;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Objects;
import java.util.Optional;

/**
 * Reads the few files of a {@code /proc} tree the policer needs. The root is configurable so tests
 * use a fake tree and a DaemonSet can mount the host's {@code /proc} elsewhere (e.g. {@code /host/proc});
 * with hostPID the container's own {@code /proc} is the host's.
 *
 * <p>A process can exit between NVML's sample and the read: every method answers empty then, never throws.
 */
public final class ProcFs {
    /** argv[0] basename of the MPS server: it shows in NVML's compute processes beside its clients. */
    public static final String MPS_SERVER = "nvidia-cuda-mps-server";

    private final Path root;

    public ProcFs(Path root) { this.root = Objects.requireNonNull(root, "root"); }

    public static ProcFs host() { return new ProcFs(Path.of("/proc")); }

    public Path root() { return root; }

    /** Text of {@code /proc/<pid>/cgroup}. */
    public Optional<String> cgroup(long pid) { return read(pid, "cgroup"); }

    /**
     * The basename of argv[0] from {@code /proc/<pid>/cmdline}, falling back to {@code comm}
     * (which the kernel cuts to 15 characters).
     */
    public Optional<String> command(long pid) {
        Optional<String> cmdline = read(pid, "cmdline").map(s -> {
            int nul = s.indexOf('\0');
            String argv0 = nul < 0 ? s : s.substring(0, nul);
            return argv0.substring(argv0.lastIndexOf('/') + 1).strip();
        }).filter(s -> !s.isEmpty());
        return cmdline.isPresent() ? cmdline : read(pid, "comm").map(String::strip);
    }

    /**
     * The parent PID from {@code /proc/<pid>/stat} (field 4, read after the last ')' so a command name
     * with spaces or parentheses cannot shift it).
     */
    public Optional<Long> parentPid(long pid) {
        return read(pid, "stat").flatMap(s -> {
            int close = s.lastIndexOf(')');
            if (close < 0) return Optional.empty();
            String[] f = s.substring(close + 1).strip().split("\\s+");
            try {
                return f.length > 1 ? Optional.of(Long.parseLong(f[1])) : Optional.empty();
            } catch (NumberFormatException e) {
                return Optional.empty();
            }
        });
    }

    /** True when the process is the MPS server (argv[0] {@value #MPS_SERVER}). */
    public boolean isMpsServer(long pid) {
        return command(pid).map(MPS_SERVER::equals).orElse(false);
    }

    private Optional<String> read(long pid, String file) {
        try {
            return Optional.of(Files.readString(root.resolve(Long.toString(pid)).resolve(file), StandardCharsets.UTF_8));
        } catch (NoSuchFileException e) {
            return Optional.empty();
        } catch (IOException | java.io.UncheckedIOException e) {
            return Optional.empty();
        }
    }
}
