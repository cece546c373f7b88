package io.mpshare.core.policy;

import io.mpshare.core.ledger.NodeState;
import io.mpshare.core.model.GpuDemand;

import java.util.Arrays;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Fragmentation gradient descent (after Weng et al., "Beware of Fragmentation", USENIX ATC'23): place the
 * pod where it least increases the node's <em>expected fragmentation</em>, the free GPU share that the
 * expected {@link TaskMix} could no longer use. mpshare's default placement.
 *
 * <p>Fragmentation of a node for one mix entry asking {@code k} GPUs of {@code n} thousandths each: when at
 * least {@code k} GPUs have {@code n} free, the free share of the GPUs with less than {@code n} free;
 * otherwise all of the node's free share. The node's fragmentation is the mix-weighted sum. The node score
 * is minus the increase that placing the pod causes (finer than the paper's integer sigmoid, so fewer
 * ties); ties go to the node left with less free GPU share (packing), then in the engine to the name.
 *
 * <p>Implementation notes. Free share is measured per GPU in thousandths of that GPU
 * ({@code min(freeMib/totalMib, freeCore/100)}), so GPUs of different sizes compare. For entries on one
 * GPU the fragmentation is a sum over GPUs of {@code phi(free)}, where {@code phi(x) = x * weight of the
 * entries needing more than x}; {@code phi} is tabulated once per GPU size, so a candidate GPU costs two
 * table reads. Entries on several GPUs (few) are counted per node. No allocation on the hot path beyond
 * the returned {@link Evaluation.Fits}; a filter+score over 1,213 nodes stays around a hundred microseconds.
 * Immutable and thread-safe (the per-size tables are built lazily in a concurrent map).
 */
public final class FragmentationPolicy implements PlacementPolicy {
    private static final int MAX_GPUS = 64;
    private static final long TIE_SLOTS = 1 << 16;
    /** Default width of a score step, in thousandths of a GPU of expected fragmentation. */
    public static final double DEFAULT_TOLERANCE = 1.0 / 64;

    private final TaskMix mix;
    private final double tolerance;
    private final boolean uidRule;
    private final ConcurrentHashMap<Long, Tables> bySize = new ConcurrentHashMap<>();
    private volatile Tables last;

    /** Per-thread scratch: candidates, free before, chosen, per-GPU tables, multi-entry counts. */
    private static final class Scratch {
        final int[] cand = new int[MAX_GPUS], before = new int[MAX_GPUS];
        final Tables[] tabs = new Tables[MAX_GPUS];
        int[] fit = new int[8];
        long[] low = new long[8];
    }

    private static final ThreadLocal<Scratch> SCRATCH = ThreadLocal.withInitial(Scratch::new);

    /**
     * @param tolerance increases of expected fragmentation closer than this (thousandths of a GPU) count
     *                  as equal, so the packing tie-break decides between them
     */
    public FragmentationPolicy(TaskMix mix, double tolerance, boolean uidRule) {
        this.mix = Objects.requireNonNull(mix, "mix");
        if (!(tolerance > 0)) throw new IllegalArgumentException("tolerance must be > 0, got " + tolerance);
        this.tolerance = tolerance;
        this.uidRule = uidRule;
    }

    public FragmentationPolicy(TaskMix mix) { this(mix, DEFAULT_TOLERANCE, false); }

    public TaskMix mix() { return mix; }

    @Override public String name() { return "fragmentation"; }

    /** Per GPU size: phi over single-GPU entries, and the needs of the multi-GPU entries (same order for every size). */
    private record Tables(long totalMib, double[] phi, int[] multiNeed, int[] multiCount, double[] multiWeight) {}

    private Tables tables(long totalMib) {
        Tables t = last;
        if (t != null && t.totalMib() == totalMib) return t;
        t = bySize.computeIfAbsent(totalMib, this::build);
        last = t;
        return t;
    }

    private Tables build(long totalMib) {
        double[] above = new double[1002]; // above[x] = weight of single-GPU entries needing more than x
        int multi = 0;
        for (TaskMix.Entry e : mix.entries()) if (e.gpuCount() > 1) multi++;
        int[] need = new int[multi], count = new int[multi];
        double[] weight = new double[multi];
        int m = 0;
        for (TaskMix.Entry e : mix.entries()) {
            int n = e.needPermille(totalMib);
            if (e.gpuCount() == 1) { for (int x = 0; x < n && x <= 1000; x++) above[x] += e.weight(); }
            else { need[m] = n; count[m] = e.gpuCount(); weight[m] = e.weight(); m++; }
        }
        double[] phi = new double[1001];
        for (int x = 0; x <= 1000; x++) phi[x] = x * above[x];
        return new Tables(totalMib, phi, need, count, weight);
    }

    /** Free share of GPU {@code pos} in thousandths after charging {@code mib} and {@code core} more; 0 when unusable. */
    static int freePermille(NodeState s, int pos, long mib, int core) {
        if (!s.usable(pos)) return 0;
        long total = s.totalMib(pos);
        long mem = Math.max(0, s.freeMib(pos) - mib) * 1000 / total;
        long cores = Math.max(0, s.freeCore(pos) - core) * 10L;
        return (int) Math.min(1000, Math.min(mem, cores));
    }

    @Override public Evaluation evaluate(NodeState s, GpuDemand d) {
        int n = s.gpuCount();
        if (n > MAX_GPUS) return new Evaluation.Unresolvable("node " + s.name() + " has " + n + " GPUs; at most " + MAX_GPUS + " are supported");
        Scratch x = SCRATCH.get();
        int[] cand = x.cand, before = x.before;
        int found = Fitting.candidates(s, d, cand);
        if (found < d.gpuCount()) return Fitting.explain(s, d, found);
        if (uidRule) {
            String why = Fitting.uidConflict(s, d);
            if (why != null) return new Evaluation.Unfit(why);
        }
        Tables[] tabs = x.tabs;
        int all = 0;
        for (int i = 0; i < n; i++) {
            long total = s.totalMib(i);
            tabs[i] = i > 0 && tabs[i - 1].totalMib() == total ? tabs[i - 1] : tables(total);
            before[i] = freePermille(s, i, 0, 0);
            all += before[i];
        }
        int multi = tabs[0].multiNeed().length;
        if (x.fit.length < multi) { x.fit = new int[multi]; x.low = new long[multi]; }
        int[] fit = x.fit;
        long[] low = x.low;
        for (int m = 0; m < multi; m++) {
            fit[m] = 0; low[m] = 0;
            for (int i = 0; i < n; i++) { if (before[i] >= tabs[i].multiNeed()[m]) fit[m]++; else low[m] += before[i]; }
        }
        int[] chosen;
        double delta;
        int leftAfter;
        if (d.gpuCount() == 1) {
            int best = -1, bestAfter = 0;
            double bestDelta = 0;
            for (int c = 0; c < found; c++) {
                int p = cand[c];
                if (sameAsEarlier(s, cand, before, c)) continue; // an equal GPU earlier scores the same; the first wins
                int a = freePermille(s, p, d.chargeMib(), d.chargeCore());
                double dl = tabs[p].phi()[a] - tabs[p].phi()[before[p]] + multiDelta(tabs, p, before[p], a, fit, low, all, multi);
                if (best < 0 || dl < bestDelta - 1e-9 || (dl <= bestDelta + 1e-9 && a < bestAfter)) { best = p; bestDelta = dl; bestAfter = a; }
            }
            chosen = new int[] {best};
            delta = bestDelta;
            leftAfter = all - before[best] + bestAfter;
        } else {
            chosen = tightest(s, cand, found, d.gpuCount());
            delta = 0;
            leftAfter = all;
            for (int p : chosen) {
                int a = freePermille(s, p, d.chargeMib(), d.chargeCore());
                delta += tabs[p].phi()[a] - tabs[p].phi()[before[p]] + multiDelta(tabs, p, before[p], a, fit, low, leftAfter, multi);
                for (int m = 0; m < multi; m++) { // apply the change, so the next GPU's delta starts from it
                    int need = tabs[p].multiNeed()[m];
                    if (before[p] >= need) fit[m]--; else low[m] -= before[p];
                    if (a >= need) fit[m]++; else low[m] += a;
                }
                leftAfter += a - before[p];
            }
        }
        long primary = -(long) Math.floor(delta / tolerance + 1e-6);
        long score = primary * TIE_SLOTS + (TIE_SLOTS - 1 - Math.min(Math.max(leftAfter, 0), TIE_SLOTS - 1));
        return new Evaluation.Fits(chosen, score);
    }

    /** Change of the multi-GPU entries' fragmentation when one GPU goes from {@code b} to {@code a} free thousandths. */
    private static double multiDelta(Tables[] tabs, int p, int b, int a, int[] fit, long[] low, int all, int multi) {
        double d = 0;
        Tables t = tabs[p];
        for (int m = 0; m < multi; m++) {
            int need = t.multiNeed()[m], k = t.multiCount()[m];
            int fit2 = fit[m] - (b >= need ? 1 : 0) + (a >= need ? 1 : 0);
            long low2 = low[m] - (b >= need ? 0 : b) + (a >= need ? 0 : a);
            long frag = fit[m] >= k ? low[m] : all;
            long frag2 = fit2 >= k ? low2 : all - b + a;
            d += t.multiWeight()[m] * (frag2 - frag);
        }
        return d;
    }

    private static boolean sameAsEarlier(NodeState s, int[] cand, int[] before, int c) {
        int p = cand[c];
        for (int e = 0; e < c; e++) {
            int q = cand[e];
            if (before[q] == before[p] && s.freeMib(q) == s.freeMib(p) && s.freeCore(q) == s.freeCore(p) && s.totalMib(q) == s.totalMib(p)) return true;
        }
        return false;
    }

    /** The k candidates with least free memory (best fit), in position order. */
    private static int[] tightest(NodeState s, int[] cand, int found, int k) {
        for (int i = 0; i < k; i++) {
            int best = i;
            for (int j = i + 1; j < found; j++) if (s.freeMib(cand[j]) < s.freeMib(cand[best])) best = j;
            int tmp = cand[i]; cand[i] = cand[best]; cand[best] = tmp;
        }
        int[] chosen = Arrays.copyOf(cand, k);
        Arrays.sort(chosen);
        return chosen;
    }
}
