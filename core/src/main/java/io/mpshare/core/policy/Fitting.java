package io.mpshare.core.policy;

import io.mpshare.core.Names;
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

    /**
     * A short reason a person can act on, for a node where {@link #candidates} found too few GPUs.
     *
     * <p>kube-scheduler groups identical reasons as "N &lt;reason&gt;" in the pod's FailedScheduling event and
     * passes the whole message through a printf-style format, cut at 1,024 characters. So a reason here never
     * names its node, never contains a percent sign, and carries only numbers that depend on the pod or on
     * the GPU model (never on what one node has free now): a cluster yields a handful of distinct reasons
     * whatever its size (docs/extender.md, "Reasons").
     */
    public static Evaluation explain(NodeState s, GpuDemand d, int found) {
        String mem = Names.RESOURCE_GPU_MEM, count = Names.LABEL_GPU_COUNT;
        String each = amount(d.chargeMib()) + (d.gpuCount() > 1 ? " each" : "");
        if (s.gpuCount() == 0)
            return new Evaluation.Unresolvable("node publishes no mpshare GPUs: check its mpshare device plugin");
        if (found < 0) {
            long largest = 0;
            for (int i = 0; i < s.gpuCount(); i++) largest = Math.max(largest, s.totalMib(i));
            if (largest >= d.chargeMib())
                return new Evaluation.Unresolvable("fewer than " + d.gpuCount() + " GPUs of " + amount(d.chargeMib()) + " or more: lower " + count + " or " + mem);
            return new Evaluation.Unresolvable("GPUs too small: the largest has " + (largest / 1024) + " GiB, pod needs " + each + ": lower " + mem);
        }
        int healthy = 0, withMem = 0;
        long mib = d.chargeMib();
        for (int i = 0; i < s.gpuCount(); i++) {
            if (!s.usable(i)) continue;
            healthy++;
            if (s.freeMib(i) >= mib) withMem++;
        }
        if (healthy == 0) return new Evaluation.Unfit("no healthy GPU (MPS daemon down or Xid): wait, or check the node's mpshare device plugin");
        String gpus = d.gpuCount() == 1 ? "no GPU" : "fewer than " + d.gpuCount() + " GPUs";
        if (withMem < d.gpuCount())
            return new Evaluation.Unfit(gpus + " with " + each + " free (" + needText(d) + "): wait, or lower " + mem
                    + (d.gpuCount() > 1 ? " or " + count : ""));
        return new Evaluation.Unfit(gpus + " with " + each + " and " + d.chargeCore() + " percent of cores free: wait, or lower "
                + Names.RESOURCE_GPU_CORE);
    }

    /** How the charge per GPU comes about, in words (no node in it; no percent sign). */
    static String needText(GpuDemand d) {
        return amount(d.requestedMibPerGpu()) + " asked + " + amount(d.reserveMib()) + " CUDA reserve";
    }

    /** MiB in words: whole or half GiB as GiB (7.5 GiB), else MiB. */
    public static String amount(long mib) {
        if (mib >= 1024 && mib % 512 == 0) return (mib % 1024 == 0 ? Long.toString(mib / 1024) : (mib / 1024) + ".5") + " GiB";
        return mib + " MiB";
    }

    /**
     * The optional one-UID-per-daemon rule (FACTS.md: MPS serves one Linux UID per daemon at a time): a reason to
     * refuse a pod of the node daemon when the node daemon's booked pods run as another known UID, else null. A pod
     * in a {@code tenant} or {@code pod} domain has a daemon of its own and is never refused for a UID
     * ({@link GpuDemand#underUidRule}), and only node-daemon pods count ({@link NodeState#uids}).
     */
    public static String uidConflict(NodeState s, GpuDemand d) {
        if (!d.underUidRule()) return null;
        long uid = d.runAsUser().getAsLong();
        for (Map.Entry<Long, Integer> e : s.uids().entrySet()) {
            if (e.getKey() != uid) return uidConflictReason(uid);
        }
        return null;
    }

    /** The reason {@link #uidConflict} gives to a pod of {@code uid} (the same on every node, so the filter builds it once). */
    public static String uidConflictReason(long uid) {
        return "its MPS daemon serves another UID (one UID at a time): run as that UID, or wait; pod runs as UID " + uid;
    }
}
