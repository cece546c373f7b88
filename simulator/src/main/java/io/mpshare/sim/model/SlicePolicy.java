package io.mpshare.sim.model;

import io.mpshare.core.ledger.Allocation;
import io.mpshare.core.ledger.NodeState;
import io.mpshare.core.model.GpuDemand;
import io.mpshare.core.policy.Evaluation;
import io.mpshare.core.policy.PlacementPolicy;
import java.util.Arrays;

/**
 * The baseline of NVIDIA's device plugin with sharing replicas (time-slicing or MPS {@code replicas: k}):
 * each GPU is cut into {@code k} equal slices of {@code floor(total / k)} MiB and {@code 100 / k}% of the SMs;
 * a pod holds whole slices. A pod asking {@code m} MiB (plus the context reserve) and {@code c}% of the
 * cores takes {@code max(ceil(m / slice), ceil(c * k / 100), 1)} slices of one GPU (of each of its GPUs);
 * a pod that needs all {@code k} slices has the GPU to itself. Within a node the GPU with the fewest free
 * slices that still fit is chosen (best fit, generous to the baseline); ties to the lower index.
 *
 * <p>The ledger books each pod's real charge; the slices a GPU has handed out are derived from the
 * node's bookings, so the policy stays a pure function of the {@link NodeState} snapshot.
 */
public final class SlicePolicy implements PlacementPolicy {
    private final int k;

    public SlicePolicy(int slicesPerGpu) {
        if (slicesPerGpu < 1 || slicesPerGpu > 100) throw new IllegalArgumentException("slices per GPU must be 1-100, got " + slicesPerGpu);
        this.k = slicesPerGpu;
    }

    public int slicesPerGpu() { return k; }

    @Override public String name() { return "slices-" + k; }

    /** Size of one slice of a GPU with {@code totalMib}. */
    public long sliceMib(long totalMib) { return totalMib / k; }

    /** Slices a pod charging {@code chargeMib} and {@code core}% per GPU takes on a GPU of {@code totalMib}; more than k: does not fit. */
    public int slicesFor(long chargeMib, int core, long totalMib) {
        long slice = sliceMib(totalMib);
        if (slice <= 0) return Integer.MAX_VALUE;
        long bySize = (chargeMib + slice - 1) / slice;
        long byCore = ((long) core * k + 99) / 100;
        return (int) Math.min(Integer.MAX_VALUE, Math.max(1, Math.max(bySize, byCore)));
    }

    /** Per thread, the last two snapshots asked about (evaluate, then assume and refresh ask about the same ones). */
    private static final class Memo {
        NodeState a, b;
        int[] usedA, usedB;
    }

    private final ThreadLocal<Memo> memo = ThreadLocal.withInitial(Memo::new);

    /** Slices handed out on each GPU (by position) of the node; the array is shared, do not change it. */
    public int[] usedSlices(NodeState s) {
        Memo m = memo.get();
        if (m.a == s) return m.usedA;
        if (m.b == s) return m.usedB;
        int[] used = count(s);
        m.b = m.a;
        m.usedB = m.usedA;
        m.a = s;
        m.usedA = used;
        return used;
    }

    private int[] count(NodeState s) {
        int[] used = new int[s.gpuCount()];
        for (Allocation a : s.pods().values()) {
            for (int idx : a.gpuIndices()) {
                int pos = idx < used.length && s.gpuIndex(idx) == idx ? idx : s.position(idx); // NVML index = position, usually
                if (pos >= 0) used[pos] += slicesFor(a.demand().chargeMib(), a.demand().chargeCore(), s.totalMib(pos));
            }
        }
        return used;
    }

    /** Free slices of the GPU at {@code pos}. */
    public int freeSlices(NodeState s, int pos) { return Math.max(0, k - usedSlices(s)[pos]); }

    @Override public Evaluation evaluate(NodeState s, GpuDemand d) {
        int n = s.gpuCount();
        int[] used = usedSlices(s);
        int[] cand = new int[n];
        int found = 0, bigEnough = 0;
        for (int i = 0; i < n; i++) {
            int need = slicesFor(d.chargeMib(), d.chargeCore(), s.totalMib(i));
            if (need > k) continue;
            bigEnough++;
            if (s.usable(i) && k - used[i] >= need) cand[found++] = i;
        }
        String what = d.chargeMib() + " MiB" + (d.chargeCore() > 0 ? " and " + d.chargeCore() + "% cores" : "")
                + (d.gpuCount() > 1 ? " on each of " + d.gpuCount() + " GPUs" : "");
        if (bigEnough < d.gpuCount())
            return new Evaluation.Unresolvable("node " + s.name() + ": " + bigEnough + " GPU(s) with " + k + " slices can hold " + what);
        if (found < d.gpuCount())
            return new Evaluation.Unfit("node " + s.name() + ": " + found + " GPU(s) with enough free slices for " + what);
        int[] chosen = new int[d.gpuCount()];
        long freeAfter = 0;
        for (int c = 0; c < chosen.length; c++) {
            int best = -1;
            for (int j = 0; j < found; j++) {
                int p = cand[j];
                if (p < 0) continue;
                if (best < 0 || k - used[p] < k - used[cand[best]]) best = j;
            }
            chosen[c] = cand[best];
            freeAfter += k - used[cand[best]] - slicesFor(d.chargeMib(), d.chargeCore(), s.totalMib(cand[best]));
            cand[best] = -1;
        }
        Arrays.sort(chosen);
        return new Evaluation.Fits(chosen, -freeAfter);
    }
}
