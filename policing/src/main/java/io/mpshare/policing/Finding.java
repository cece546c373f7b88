package io.mpshare.policing;

import io.mpshare.core.model.PodKey;
import io.mpshare.policing.Snapshot.ProcessSample;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

/** What the verdict engine found wrong on one GPU in one snapshot. Sealed: every kind has its fields and reason. */
public sealed interface Finding {
    int gpu();

    /** Identity of the condition across cycles: the same condition seen again is not reported again. */
    String key();

    /** Short machine reason, used as the {@code reason} label of metrics. */
    String reason();

    /**
     * The pod's MPS clients on this GPU use more than it was allocated there.
     *
     * @param allowedMib the pod's charge on the GPU (request + reserve per GPU-asking container) + one slack per pod
     * @param offenders  the pod's clients to end, largest first, until the rest fits
     */
    record OverLimit(String podUid, PodKey pod, int gpu, long usedMib, long allowedMib,
                     List<ProcessSample> clients, List<ProcessSample> offenders) implements Finding {
        public OverLimit {
            Objects.requireNonNull(podUid, "podUid");
            Objects.requireNonNull(pod, "pod");
            clients = List.copyOf(clients);
            offenders = List.copyOf(offenders);
        }

        @Override public String key() { return "over:" + podUid + ":" + gpu; }

        @Override public String reason() { return "over_limit"; }
    }

    /** Why a pod's process is rogue. */
    enum Why {
        /** Not an MPS client on a shared GPU: it runs with no cap at all. */
        NOT_MPS_CLIENT,
        /** The pod has no allocation on this GPU (none at all, or another GPU): it bypassed the scheduler. */
        NO_ALLOCATION_ON_GPU
    }

    /** A pod's process that should not be on this GPU, or not this way. */
    record Rogue(String podUid, Optional<PodKey> pod, int gpu, ProcessSample process, Why why) implements Finding {
        public Rogue {
            Objects.requireNonNull(podUid, "podUid");
            Objects.requireNonNull(pod, "pod");
            Objects.requireNonNull(process, "process");
            Objects.requireNonNull(why, "why");
        }

        @Override public String key() { return "rogue:" + gpu + ":" + process.pid(); }

        @Override public String reason() { return why == Why.NOT_MPS_CLIENT ? "rogue_not_mps" : "rogue_no_allocation"; }
    }

    /** A GPU process that belongs to no pod (a host process, or one whose cgroup could not be read). Reported only. */
    record Unknown(int gpu, ProcessSample process) implements Finding {
        public Unknown { Objects.requireNonNull(process, "process"); }

        @Override public String key() { return "unknown:" + gpu + ":" + process.pid(); }

        @Override public String reason() { return "unknown_process"; }
    }
}
