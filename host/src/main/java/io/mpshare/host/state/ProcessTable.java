package io.mpshare.host.state;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.OptionalLong;

/**
 * Process identity: a PID with its start time. Host mode keys a job on both, so a PID reused by an unrelated
 * process after a restart is never mistaken for the job.
 */
@FunctionalInterface
public interface ProcessTable {
    /** The start time of a running process (clock ticks since boot), empty when it is gone or a zombie. */
    OptionalLong startTicks(long pid);

    default boolean alive(long pid, long startTicks) {
        OptionalLong s = startTicks(pid);
        return s.isPresent() && s.getAsLong() == startTicks;
    }

    /** Reads {@code <proc>/<pid>/stat}: state (field 3) and starttime (field 22), after the command name's closing parenthesis. */
    static ProcessTable proc(Path procRoot) {
        return pid -> {
            if (pid <= 0) return OptionalLong.empty();
            try {
                String stat = Files.readString(procRoot.resolve(Long.toString(pid)).resolve("stat"));
                String[] f = stat.substring(stat.lastIndexOf(')') + 2).trim().split("\\s+");
                if (f[0].equals("Z") || f[0].equals("X")) return OptionalLong.empty();
                return OptionalLong.of(Long.parseLong(f[19])); // field 22 overall = index 19 after pid and comm
            } catch (IOException | RuntimeException e) {
                return OptionalLong.empty();
            }
        };
    }

    static ProcessTable host() { return proc(Path.of("/proc")); }
}
