package io.mpshare.mps;

import java.util.List;

/**
 * The MPS control language (FACTS.md), one command per call to {@code nvidia-cuda-mps-control}
 * against one pipe directory. {@code ProcessMpsControl} is the only class that starts the binary;
 * {@code FakeMpsControl} models a daemon for tests. The real client exits 0 even on errors, so
 * implementations parse the output and throw {@link MpsException} with what it said.
 */
public interface MpsControl {
    /** False when no control daemon answers on the pipe directory ("Cannot find MPS control daemon process"). */
    boolean daemonUp();

    /** PIDs of running MPS servers (host PIDs when the daemon runs in the host PID namespace). */
    List<Long> serverPids();

    /** PIDs of the clients of one server. */
    List<Long> clientPids(long serverPid);

    /** Sets the pinned-memory ceiling for servers started from now on, for device ordinal {@code device}. Verified by reading back. */
    void setDefaultPinnedMemLimit(int device, long mib);

    /** Reads the default ceiling of {@code device} in MiB, or -1 when none is set. */
    long defaultPinnedMemLimit(int device);

    /** Sets the ceiling of a running server for {@code device}; clients that connect afterwards get it. */
    void setServerPinnedMemLimit(long serverPid, int device, long mib);

    void setDefaultActiveThreadPercentage(int percent);

    /** Asks the server to end one client. */
    void terminateClient(long serverPid, long clientPid);

    /** Asks the control daemon to exit. */
    void quit();

    /**
     * Sets the active thread percentage of a running server ({@code set_active_thread_percentage <server> <n>}): a ceiling
     * on the SMs its clients may use that a client's own {@code CUDA_MPS_ACTIVE_THREAD_PERCENTAGE} cannot pass (measured).
     * Verified by reading back.
     */
    default void setServerActiveThreadPercentage(long serverPid, int percent) {
        throw new UnsupportedOperationException("setServerActiveThreadPercentage is not supported by " + getClass().getSimpleName());
    }

    /** {@code get_active_thread_percentage <server>}: the running server's active thread percentage. */
    default double serverActiveThreadPercentage(long serverPid) {
        throw new UnsupportedOperationException("serverActiveThreadPercentage is not supported by " + getClass().getSimpleName());
    }

    /** {@code get_server_status <server>}: {@code ACTIVE} for a serving server (measured); other words are reported as said. */
    default String serverStatus(long serverPid) {
        throw new UnsupportedOperationException("serverStatus is not supported by " + getClass().getSimpleName());
    }

    /**
     * Reads the ceiling of a running server for {@code device} in MiB, or -1 when none is set.
     * (Added with ProcessMpsControl; the default says the implementation cannot read it.)
     */
    default long serverPinnedMemLimit(long serverPid, int device) {
        throw new UnsupportedOperationException("serverPinnedMemLimit is not supported by " + getClass().getSimpleName());
    }
}
