package io.mpshare.sim.workload;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * The pods of one simulation, sorted by arrival (ties by id), with a line that says where they came from.
 * Ids are renumbered 0..n-1 in arrival order.
 */
public record Workload(String description, List<SimPod> pods) {
    public Workload {
        var sorted = new ArrayList<>(pods);
        sorted.sort(Comparator.comparingLong(SimPod::arrivalMs).thenComparingInt(SimPod::id));
        var renumbered = new ArrayList<SimPod>(sorted.size());
        for (int i = 0; i < sorted.size(); i++) {
            SimPod p = sorted.get(i);
            renumbered.add(p.id() == i ? p : new SimPod(i, p.arrivalMs(), p.durationMs(), p.memMib(), p.corePercent(), p.gpuCount(), p.kind()));
        }
        pods = List.copyOf(renumbered);
    }

    public int size() { return pods.size(); }

    /** Arrival time of the last pod, 0 for an empty workload. */
    public long lastArrivalMs() { return pods.isEmpty() ? 0 : pods.getLast().arrivalMs(); }
}
