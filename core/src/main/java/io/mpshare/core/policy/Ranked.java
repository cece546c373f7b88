package io.mpshare.core.policy;

import io.mpshare.core.ledger.NodeState;
import io.mpshare.core.model.GpuDemand;
import java.util.Arrays;

/** Shared engine of binpack and spread: pick the k candidates with least (or most) free memory, ties by index. */
final class Ranked {
    private Ranked() {}

    private static final ThreadLocal<int[]> SCRATCH = ThreadLocal.withInitial(() -> new int[64]);

    static Evaluation choose(NodeState s, GpuDemand d, boolean uidRule, boolean most) {
        if (d.gpuCount() == 1) {
            int p = s.pickOne(d.chargeMib(), d.chargeCore(), most);
            if (p < 0) return Fitting.explain(s, d, Fitting.candidates(s, d, scratch(s.gpuCount())));
            if (uidRule) {
                String why = Fitting.uidConflict(s, d);
                if (why != null) return new Evaluation.Unfit(why);
            }
            if (DomainCost.matters(s, d)) p = pickCosted(s, d, most);
            return new Evaluation.Fits(new int[]{p}, scoreOne(s, d, p, most));
        }
        int[] cand = scratch(s.gpuCount());
        int found = Fitting.candidates(s, d, cand);
        if (found < d.gpuCount()) return Fitting.explain(s, d, found);
        if (uidRule) {
            String why = Fitting.uidConflict(s, d);
            if (why != null) return new Evaluation.Unfit(why);
        }
        int k = d.gpuCount();
        // partial selection sort: first k by free memory (ascending for best fit, descending for spread),
        // ties to the lower position (= lower NVML index); swaps reorder candidates, so compare positions explicitly
        for (int i = 0; i < k; i++) {
            int best = i;
            for (int j = i + 1; j < found; j++) {
                long fj = s.freeMib(cand[j]), fb = s.freeMib(cand[best]);
                if ((most ? fj > fb : fj < fb) || (fj == fb && cand[j] < cand[best])) best = j;
            }
            int t = cand[i]; cand[i] = cand[best]; cand[best] = t;
        }
        int[] chosen = new int[k];
        long leftover = 0;
        for (int i = 0; i < k; i++) chosen[i] = cand[i];
        if (k > 1) Arrays.sort(chosen);
        for (int p : chosen) leftover += s.freeMib(p) - d.chargeMib();
        return new Evaluation.Fits(chosen, scoreOf(s, d, leftover, most));
    }

    /** {@link #choose}'s score without building an Evaluation; {@link PlacementPolicy#NO_FIT} when it would not fit. */
    static long score(NodeState s, GpuDemand d, boolean uidRule, boolean most) {
        if (d.gpuCount() == 1) {
            if (s.maxFreeMib() < d.chargeMib()) return PlacementPolicy.NO_FIT;
            int p = s.pickOne(d.chargeMib(), d.chargeCore(), most);
            if (p < 0 || (uidRule && Fitting.uidConflict(s, d) != null)) return PlacementPolicy.NO_FIT;
            if (DomainCost.matters(s, d)) p = pickCosted(s, d, most);
            return scoreOne(s, d, p, most);
        }
        return choose(s, d, uidRule, most) instanceof Evaluation.Fits f ? f.score() : PlacementPolicy.NO_FIT;
    }

    /** Whether {@link #choose} would answer Fits; for one GPU without a core share, from one field of the snapshot. */
    static boolean fits(NodeState s, GpuDemand d, boolean uidRule) {
        if (uidRule && Fitting.uidConflict(s, d) != null) return false;
        if (d.gpuCount() == 1)
            return d.chargeCore() == 0 ? s.maxOpenFreeMib() >= d.chargeMib() : s.pickOne(d.chargeMib(), d.chargeCore(), false) >= 0;
        return choose(s, d, false, false) instanceof Evaluation.Fits;
    }

    /** The score of a one-GPU demand on the GPU at {@code p}: the domain cost first, then the fit ({@link #scoreOf}). */
    private static long scoreOne(NodeState s, GpuDemand d, int p, boolean most) {
        return DomainCost.weigh(scoreOf(s, d, s.freeMib(p) - d.chargeMib(), most), DomainCost.of(s, p, d));
    }

    /**
     * The GPU with room for a one-GPU demand that adds the fewest daemon slices ({@link DomainCost}), then the least
     * (or most) free memory, then the lower position; the caller knows one GPU has room.
     */
    private static int pickCosted(NodeState s, GpuDemand d, boolean most) {
        int best = -1, bestCost = 0;
        long bestFree = 0;
        for (int i = 0; i < s.gpuCount(); i++) {
            if (!s.usable(i) || s.freeMib(i) < d.chargeMib() || s.freeCore(i) < d.chargeCore()) continue;
            int c = DomainCost.of(s, i, d);
            long free = s.freeMib(i);
            if (best < 0 || c < bestCost || (c == bestCost && (most ? free > bestFree : free < bestFree))) { best = i; bestCost = c; bestFree = free; }
        }
        return best;
    }

    /** Primary: memory left on the chosen GPUs; secondary: free memory (GiB, capped) left on the whole node. */
    private static long scoreOf(NodeState s, GpuDemand d, long leftover, boolean most) {
        long nodeFreeAfterGib = (s.usableFreeMib() - (long) d.gpuCount() * d.chargeMib()) >> 10;
        long secondary = Math.min(nodeFreeAfterGib, 4095);
        return most ? leftover * 4096 + secondary : -(leftover * 4096 + secondary);
    }

    private static int[] scratch(int n) {
        int[] a = SCRATCH.get();
        if (a.length < n) { a = new int[n]; SCRATCH.set(a); }
        return a;
    }
}
