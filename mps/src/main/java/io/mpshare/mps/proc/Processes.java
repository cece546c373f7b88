package io.mpshare.mps.proc;

import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * The processes of the host, as the supervisor needs them: is a PID alive, the live children of a process (a control
 * daemon's MPS servers), a process's UID and command line, and SIGKILL. {@link ProcProcesses} reads {@code /proc};
 * tests use the fake node's.
 */
public interface Processes {
    /** Running or sleeping, not a zombie and not gone: a zombie holds nothing (no socket, no CUDA context). */
    boolean alive(long pid);

    /** PIDs of the live processes whose parent is {@code pid}. */
    List<Long> liveChildren(long pid);

    /** The effective UID, or empty when the process is gone. */
    Optional<Integer> uid(long pid);

    /** The command line, arguments joined by spaces, or empty when the process is gone or has none (a kernel thread). */
    Optional<String> command(long pid);

    /** When the process started (to tell a PID from a later process that reuses it), or empty when it is gone. */
    Optional<Instant> startedAt(long pid);

    /** SIGKILL; false when the process was already gone or may not be signalled. */
    boolean kill(long pid);
}
