package io.mpshare.host;

import io.mpshare.mps.MpsSupervisor;
import io.mpshare.mps.SupervisorStatus;

import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * What the host needs from its MPS control daemon: whether it is ready (no job starts otherwise: without the
 * daemon a CUDA process runs with no cap at all, FACTS.md), the pipe directory clients use, and per-GPU server
 * ceilings. {@link #of(MpsSupervisor)} adapts the real supervisor; tests pass a fake.
 */
public interface DaemonGate {
    boolean ready();

    /** Why it is not ready, for the refusal a user reads. */
    String notReadyReason();

    Path pipeDir();

    /** Sets GPU {@code device}'s server ceiling on the running daemon; throws when the daemon does not accept it. */
    void setCeiling(int device, long mib) throws Exception;

    static DaemonGate of(MpsSupervisor supervisor, Path pipeDir) {
        return new DaemonGate() {
            @Override public boolean ready() { return supervisor.status().ready(); }

            @Override public String notReadyReason() {
                SupervisorStatus s = supervisor.status();
                return "the MPS control daemon is not ready (phase " + s.phase() + (s.lastError() == null ? "" : ", last error: " + s.lastError()) + ")";
            }

            @Override public Path pipeDir() { return pipeDir; }

            @Override public void setCeiling(int device, long mib) throws Exception {
                supervisor.setCeiling(device, mib).get(15, TimeUnit.SECONDS);
            }
        };
    }
}
