package io.mpshare.deviceplugin.domains;

import io.mpshare.core.isolation.FaultDomains.Kind;

import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * One domain as its colour's supervisor reports it: what the node agent reads of {@code GET /status}'s domains.
 *
 * @param gpu        the GPU's UUID
 * @param kind       the kind it was created with
 * @param state      where its daemon stands
 * @param pipeDir    its {@code CUDA_MPS_PIPE_DIRECTORY} on the host
 * @param ceilingMib the server ceiling as applied (whole GiB)
 * @param faults     faults seen since the domain was created
 * @param lastFault  the latest fault, or null
 * @param stalledBy  while STALLED: the processes holding connections to its {@code control} socket
 */
public record DomainReport(String id, String gpu, Kind kind, State state, String pipeDir, long ceilingMib, int threadPercent,
                           long faults, Fault lastFault, List<Holder> stalledBy) {
    public DomainReport {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(state, "state");
        stalledBy = stalledBy == null ? List.of() : List.copyOf(stalledBy);
    }

    /**
     * The daemon's state: STARTING (not yet answering with its settings), SERVING, FAULTED (a server faulted; its
     * clients are being killed and new clients are refused until they are gone), STALLED (it stopped answering while it
     * may have clients), DRAINING (deleted, waiting for its last client), DOWN (exited, restart scheduled); UNKNOWN for
     * a state this agent does not know.
     */
    public enum State {
        STARTING, SERVING, FAULTED, STALLED, DRAINING, DOWN, UNKNOWN;

        public static State parse(String s) {
            for (State x : values()) if (x.name().equalsIgnoreCase(s == null ? "" : s.strip())) return x;
            return UNKNOWN;
        }
    }

    /** One fault: when the supervisor acted on it, which detector saw it, the client PIDs it killed. */
    public record Fault(Instant at, String source, List<Long> clients) {
        public Fault { clients = clients == null ? List.of() : List.copyOf(clients); }
    }

    /** A process holding connections to a stalled daemon's {@code control} socket; its command line is its own word. */
    public record Holder(long pid, int uid, int connections, String command) {}
}
