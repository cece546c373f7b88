package io.mpshare.policing;

import io.mpshare.core.model.PodKey;

import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * What the policer tells: a finding or an action taken. The device plugin turns it into a Kubernetes
 * Event on the pod (or on the Node when {@code podUid} is empty); host mode logs it.
 *
 * @param podUid    "" for an unknown process
 * @param pod       the pod's namespace/name when it has an allocation on this node
 * @param pid       the host PID concerned, or 0 for a whole-pod event
 * @param container the container's name, "" when unknown
 */
public record PolicerEvent(Instant at, Kind kind, String podUid, Optional<PodKey> pod, int gpu, long pid,
                           String container, String message) {
    public PolicerEvent {
        Objects.requireNonNull(at, "at");
        Objects.requireNonNull(kind, "kind");
        podUid = podUid == null ? "" : podUid;
        Objects.requireNonNull(pod, "pod");
        container = container == null ? "" : container;
        Objects.requireNonNull(message, "message");
    }

    /** The Kubernetes Event reason is {@link #reason()}; all kinds but {@code POD_ENDED} are warnings. */
    public enum Kind {
        OVER_LIMIT("GpuMemoryOverLimit"),
        ROGUE_PROCESS("RogueGpuProcess"),
        UNKNOWN_PROCESS("UnknownGpuProcess"),
        CLIENT_TERMINATED("MpsClientTerminated"),
        PROCESS_KILLED("GpuProcessKilled"),
        POD_EVICTED("GpuPodEvicted"),
        EVICTION_BLOCKED("GpuPodEvictionBlocked"),
        ACTION_FAILED("GpuPolicerActionFailed"),
        POD_ENDED("MpsClientsEnded");

        private final String reason;

        Kind(String reason) { this.reason = reason; }

        public String reason() { return reason; }

        public boolean warning() { return this != POD_ENDED; }
    }

    public String reason() { return kind.reason(); }
}
