package io.mpshare.deviceplugin.ceiling;

import io.mpshare.mps.Colour;
import io.mpshare.mps.SupervisorStatus;
import io.mpshare.mps.SupervisorStatusClient;

import java.nio.file.Path;
import java.time.Duration;

/**
 * One colour's supervisor, as the ceiling controller needs it. Both calls throw {@code MpsException} when the
 * supervisor does not answer or refuses. Production: {@link #overSocket} ({@code <runDir>/<colour>/supervisor.sock}).
 */
public interface CeilingTarget {
    /** The supervisor's status; {@link SupervisorStatus#ceilingsMib()} is what it keeps and re-applies after each start. */
    SupervisorStatus status();

    /** Sets GPU {@code device}'s ceiling live, on the running servers and as the default for new ones. */
    void setCeiling(int device, long mib);

    /** The colour's supervisor over its unix socket under {@code runDir}. */
    static CeilingTarget overSocket(Colour colour, Path runDir, Duration timeout) {
        SupervisorStatusClient client = SupervisorStatusClient.forColourSocket(colour, runDir, timeout);
        return new CeilingTarget() {
            @Override public SupervisorStatus status() { return client.status(); }

            @Override public void setCeiling(int device, long mib) { client.setCeiling(device, mib); }

            @Override public String toString() { return client.where(); }
        };
    }
}
