package io.mpshare.core.ledger;

import io.mpshare.core.model.GpuDemand;
import io.mpshare.core.model.PodKey;

import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * One pod's booking: which GPUs of which node, what is charged on each, and where it stands.
 *
 * @param gpuIndices NVML indices on {@code node}, distinct, ascending; as many as {@code demand.gpuCount()}
 * @param gpuUuids   the UUIDs of those GPUs, same order
 */
public record Allocation(PodKey pod, String podUid, String node, List<Integer> gpuIndices, List<String> gpuUuids,
                         GpuDemand demand, Instant assumedAt, Phase phase) {
    public Allocation {
        Objects.requireNonNull(pod, "pod");
        podUid = podUid == null ? "" : podUid;
        Objects.requireNonNull(node, "node");
        gpuIndices = List.copyOf(gpuIndices);
        gpuUuids = List.copyOf(gpuUuids);
        Objects.requireNonNull(demand, "demand");
        Objects.requireNonNull(assumedAt, "assumedAt");
        Objects.requireNonNull(phase, "phase");
        if (gpuIndices.size() != demand.gpuCount())
            throw new IllegalArgumentException(pod + ": " + gpuIndices.size() + " GPUs for a demand of " + demand.gpuCount());
        if (gpuUuids.size() != gpuIndices.size()) throw new IllegalArgumentException(pod + ": GPU UUIDs and indices differ in number");
        if (gpuIndices.stream().distinct().count() != gpuIndices.size()) throw new IllegalArgumentException(pod + ": GPU indices repeat");
    }

    public Allocation withPhase(Phase p) {
        return p == phase ? this : new Allocation(pod, podUid, node, gpuIndices, gpuUuids, demand, assumedAt, p);
    }

    /** Same pod, node, GPUs and charge (phase and time aside). */
    public boolean samePlacement(Allocation o) {
        return pod.equals(o.pod) && node.equals(o.node) && gpuIndices.equals(o.gpuIndices) && demand.equals(o.demand);
    }
}
