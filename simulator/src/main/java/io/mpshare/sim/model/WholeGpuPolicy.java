package io.mpshare.sim.model;

import io.mpshare.core.ledger.NodeState;
import io.mpshare.core.model.GpuDemand;
import io.mpshare.core.policy.Evaluation;
import io.mpshare.core.policy.PlacementPolicy;
import java.util.Arrays;

/**
 * The no-sharing baseline ({@code nvidia.com/gpu: N}): a pod gets {@code gpu-count} GPUs of its own.
 * A GPU is free when nothing is booked on it; among free GPUs large enough the smallest is chosen, ties to
 * the lower index. Score: minus the free GPUs left on the node (fuller nodes first).
 */
public final class WholeGpuPolicy implements PlacementPolicy {
    @Override public String name() { return "whole-gpu"; }

    @Override public Evaluation evaluate(NodeState s, GpuDemand d) {
        int n = s.gpuCount(), bigEnough = 0, idle = 0;
        int[] cand = new int[n];
        int found = 0;
        for (int i = 0; i < n; i++) {
            boolean free = s.usable(i) && s.allocatedMib(i) == 0;
            if (free) idle++;
            if (s.totalMib(i) < d.chargeMib()) continue;
            bigEnough++;
            if (free) cand[found++] = i;
        }
        if (bigEnough < d.gpuCount())
            return new Evaluation.Unresolvable("node " + s.name() + ": " + bigEnough + " GPU(s) hold " + d.chargeMib()
                    + " MiB; pod needs " + d.gpuCount());
        if (found < d.gpuCount())
            return new Evaluation.Unfit("node " + s.name() + ": " + found + " free GPU(s) large enough; pod needs " + d.gpuCount());
        int[] chosen = new int[d.gpuCount()];
        for (int c = 0; c < chosen.length; c++) {
            int best = -1;
            for (int j = 0; j < found; j++) {
                if (cand[j] < 0) continue;
                if (best < 0 || s.totalMib(cand[j]) < s.totalMib(cand[best])) best = j;
            }
            chosen[c] = cand[best];
            cand[best] = -1;
        }
        Arrays.sort(chosen);
        return new Evaluation.Fits(chosen, -(idle - d.gpuCount()));
    }

    /** Free (nothing booked, healthy) GPUs of the node. */
    public static int idleGpus(NodeState s) {
        int idle = 0;
        for (int i = 0; i < s.gpuCount(); i++) if (s.usable(i) && s.allocatedMib(i) == 0) idle++;
        return idle;
    }
}
