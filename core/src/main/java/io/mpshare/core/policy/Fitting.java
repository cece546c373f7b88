package io.mpshare.core.policy;

import io.mpshare.core.ledger.NodeState;
import io.mpshare.core.model.GpuDemand;

import java.util.Map;

/**
 * The fit rules every policy shares: which GPUs can take the demand now, and the reasons when none can.
 * Allocation-free on the common path so that a filter over thousands of nodes stays cheap.
 */
public final class Fitting {
    private Fitting() {}

    /**
     * Fills {@code out} with the positions of GPUs that can take {@code d} now (healthy, enough free memory
     * and cores), in ascending position order, and returns how many; returns -1 when the node can never
     * take it as built (fewer GPUs large enough, healthy or not, than asked). An unhealthy GPU is a
     * passing state (MPS daemon restarting, Xid), so it makes a node unfit, not unresolvable.
     */
    public static int candidates(NodeState s, GpuDemand d, int[] out) {
        int n = s.gpuCount(), k = 0, bigEnough = 0;
        long need = d.chargeMib();
        int core = d.chargeCore();
        for (int i = 0; i < n; i++) {
            if (s.totalMib(i) < need) continue;
            bigEnough++;
            if (s.usable(i) && s.freeMib(i) >= need && s.freeCore(i) >= core) out[k++] = i;
        }
        return bigEnough < d.gpuCount() ? -1 : k;
    }

    /** A short reason a person can act on, for a node where {@link #candidates} found too few GPUs. */
    public static Evaluation explain(NodeState s, GpuDemand d, int found) {
        String need = needText(d);
        if (s.gpuCount() == 0)
            return new Evaluation.Unresolvable("node " + s.name() + " has no shared GPUs; pod needs " + need);
        if (found < 0) {
            long largest = 0;
            int bigEnough = 0;
            for (int i = 0; i < s.gpuCount(); i++) {
                largest = Math.max(largest, s.totalMib(i));
                if (s.totalMib(i) >= d.chargeMib()) bigEnough++;
            }
            if (largest >= d.chargeMib())
                return new Evaluation.Unresolvable("node " + s.name() + " has " + bigEnough + " of " + s.gpuCount()
                        + " GPU(s) large enough; pod needs " + need);
            return new Evaluation.Unresolvable("node " + s.name() + ": largest GPU has " + largest + " MiB in all; pod needs " + need);
        }
        int best = -1;
        for (int i = 0; i < s.gpuCount(); i++) if (s.usable(i) && (best < 0 || s.freeMib(i) > s.freeMib(best))) best = i;
        if (best < 0) return new Evaluation.Unfit("node " + s.name() + ": no healthy GPU (MPS daemon down or Xid); pod needs " + need);
        return new Evaluation.Unfit("node " + s.name() + ": " + found + " GPU(s) with room, most free is GPU " + s.gpuIndex(best)
                + " with " + s.freeMib(best) + " MiB and " + s.freeCore(best) + "% cores free of " + s.totalMib(best) + " MiB; pod needs " + need);
    }

    static String needText(GpuDemand d) {
        String mem = d.chargeMib() + " MiB (" + d.requestedMibPerGpu() + " MiB asked + " + d.reserveMib()
                + " MiB CUDA context reserve per container)";
        String core = d.chargeCore() > 0 ? " and " + d.chargeCore() + "% cores" : "";
        return mem + core + (d.gpuCount() > 1 ? " on each of " + d.gpuCount() + " GPUs" : " on one GPU");
    }

    /**
     * The optional one-UID-per-daemon rule (FACTS.md: MPS serves one Linux UID at a time):
     * a reason to refuse when the node's booked pods run as another known UID, else null.
     */
    public static String uidConflict(NodeState s, GpuDemand d) {
        if (d.runAsUser().isEmpty()) return null;
        long uid = d.runAsUser().getAsLong();
        for (Map.Entry<Long, Integer> e : s.uids().entrySet()) {
            if (e.getKey() != uid)
                return "node " + s.name() + ": its MPS daemon serves pods running as UID " + e.getKey()
                        + " and MPS runs one UID at a time; pod runs as UID " + uid;
        }
        return null;
    }
}
