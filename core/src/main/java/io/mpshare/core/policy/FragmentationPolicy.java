package io.mpshare.core.policy;

import io.mpshare.core.Names;
import io.mpshare.core.ledger.NodeState;
import io.mpshare.core.model.GpuDemand;

import java.util.Arrays;
import java.util.List;
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
 * ties); ties go to a fixed pseudo-random order of the nodes, by a hash of the name ({@link TieBreak#NAME_HASH}:
 * a packing tie-break sends equal choices to the smallest nodes and strands their GPUs without CPU), then in
 * the engine to the name. Before all of it comes the cost of one more MPS daemon on the chosen GPU ({@link DomainCost}):
 * a pod goes where its fault domain already runs whenever room allows. A CPU-only pod ({@link #hostScore}) still packs: onto the node with the least free
 * GPU share, whose CPU is the least use to GPU pods.
 *
 * <p>Host CPU. The extender knows each node's free CPU (allocatable minus the requests of its pods) and
 * the pod's CPU request; {@link #evaluate(NodeState, GpuDemand, long, long)} takes them, and then an entry
 * whose CPU the node can no longer host counts all the node's free GPU share as fragment (the paper's
 * "lack CPU" case). {@link #evaluate(NodeState, GpuDemand)} is the same with CPU unknown (never short).
 * {@link #hostScore} scores a CPU-only pod by the GPU share its CPU would strand.
 *
 * <p>Implementation notes. Free share is measured per GPU in thousandths of that GPU
 * ({@code min(freeMib/totalMib, freeCore/100)}), so GPUs of different sizes compare. For entries on one
 * GPU the fragmentation is a sum over GPUs of {@code phi(free)}, where {@code phi(x) = x * weight of the
 * entries needing more than x} (among those whose CPU the node can host; the others add their weight times
 * all the free share); {@code phi} is tabulated once per GPU size and CPU level, so a candidate GPU costs a
 * few table reads. Entries on several GPUs (few) are counted per node. No allocation on the hot path beyond
 * the returned {@link Evaluation.Fits}; a filter+score over 1,213 nodes stays around a hundred microseconds.
 * Immutable and thread-safe (the per-size tables are built lazily in a concurrent map).
 */
public final class FragmentationPolicy implements PlacementPolicy {
    private static final int MAX_GPUS = 64;
    private static final long TIE_SLOTS = 1 << 16;
    /** CPU left when the caller does not know it: every entry fits. */
    public static final long CPU_UNKNOWN = Long.MAX_VALUE;
    /**
     * Default width of a score step: increases of expected fragmentation within 40 thousandths of a GPU
     * count as equal and the tie-break decides (chosen on the openb trace families, 18 traces with 2 seeds of
     * resampling and 10 of arrivals each: 30 and 50 lose on the worst seeds, docs/decisions/default-placement-policy.md).
     */
    public static final double DEFAULT_TOLERANCE = 40;

    /** How nodes whose increases count as equal are ordered. */
    public enum TieBreak {
        /**
         * By a hash of the node's name: a fixed pseudo-random order, the same in prioritize and bind and in every
         * replica. Spreads equal choices over node kinds the way a random order does (the default).
         */
        NAME_HASH,
        /** The node left with less free GPU share first (packing); what this policy did before the trace families. */
        PACKING
    }

    private final TaskMix mix;
    private final double tolerance;
    private final boolean uidRule;
    private final TieBreak tieBreak;
    /** Distinct CPU (memory) asks of the entries, ascending; an entry's CPU (memory) level is its index here. */
    private final long[] cpuLevels, memLevels;
    private final ConcurrentHashMap<Long, Tables> bySize = new ConcurrentHashMap<>();
    private volatile Tables last;

    /** Per-thread scratch: candidates, free before, per-GPU tables, multi-entry counts. */
    private static final class Scratch {
        final int[] cand = new int[MAX_GPUS], before = new int[MAX_GPUS];
        final Tables[] tabs = new Tables[MAX_GPUS];
        int[] fit = new int[8];
        long[] low = new long[8];
    }

    private static final ThreadLocal<Scratch> SCRATCH = ThreadLocal.withInitial(Scratch::new);

    /**
     * @param tolerance increases of expected fragmentation closer than this (thousandths of a GPU) count
     *                  as equal, so the tie-break ({@link TieBreak#NAME_HASH}) decides between them
     */
    public FragmentationPolicy(TaskMix mix, double tolerance, boolean uidRule) { this(mix, tolerance, uidRule, TieBreak.NAME_HASH); }

    /** @param tieBreak how nodes with equal (within {@code tolerance}) increases are ordered */
    public FragmentationPolicy(TaskMix mix, double tolerance, boolean uidRule, TieBreak tieBreak) {
        this.mix = Objects.requireNonNull(mix, "mix");
        this.tieBreak = Objects.requireNonNull(tieBreak, "tieBreak");
        if (!(tolerance > 0)) throw new IllegalArgumentException("tolerance must be > 0, got " + tolerance);
        this.tolerance = tolerance;
        this.uidRule = uidRule;
        this.cpuLevels = mix.entries().stream().mapToLong(TaskMix.Entry::cpuMilli).distinct().sorted().toArray();
        this.memLevels = mix.entries().stream().mapToLong(TaskMix.Entry::memoryMib).distinct().sorted().toArray();
    }

    public FragmentationPolicy(TaskMix mix) { this(mix, DEFAULT_TOLERANCE, false); }

    public TaskMix mix() { return mix; }

    @Override public String name() { return Names.POLICY_FRAGMENTATION; }

    /**
     * Per GPU size. For a host level h (how many CPU levels and memory levels the node can host, combined),
     * {@code phi(h)[x]}: x times the weight of single-GPU entries the host can take that need more than x;
     * {@code lack(h)}: weight of single-GPU entries it cannot take. Built lazily per host level met.
     * Multi-GPU entries: need, count, weight, CPU and memory level (same order for every size).
     */
    private final class Tables {
        final long totalMib;
        final int[] need1, lvC1, lvM1;
        final double[] w1;
        final int[] multiNeed, multiCount, multiLevelC, multiLevelM;
        final double[] multiWeight;
        final double[][] phi;
        final double[] lack;

        Tables(long totalMib) {
            this.totalMib = totalMib;
            int singles = 0, multi = 0;
            for (TaskMix.Entry e : mix.entries()) if (e.gpuCount() > 1) multi++; else singles++;
            need1 = new int[singles]; lvC1 = new int[singles]; lvM1 = new int[singles]; w1 = new double[singles];
            multiNeed = new int[multi]; multiCount = new int[multi]; multiLevelC = new int[multi]; multiLevelM = new int[multi];
            multiWeight = new double[multi];
            int a = 0, m = 0;
            for (TaskMix.Entry e : mix.entries()) {
                int n = e.needPermille(totalMib), lc = Arrays.binarySearch(cpuLevels, e.cpuMilli()), lm = Arrays.binarySearch(memLevels, e.memoryMib());
                if (e.gpuCount() == 1) { need1[a] = n; lvC1[a] = lc; lvM1[a] = lm; w1[a] = e.weight(); a++; }
                else { multiNeed[m] = n; multiCount[m] = e.gpuCount(); multiWeight[m] = e.weight(); multiLevelC[m] = lc; multiLevelM[m] = lm; m++; }
            }
            int h = (cpuLevels.length + 1) * (memLevels.length + 1);
            phi = new double[h][];
            lack = new double[h];
        }

        double[] phi(int h) {
            double[] p = phi[h];
            return p != null ? p : build(h);
        }

        double lack(int h) {
            if (phi[h] == null) build(h);
            return lack[h];
        }

        private synchronized double[] build(int h) {
            if (phi[h] != null) return phi[h];
            int lc = h / (memLevels.length + 1), lm = h % (memLevels.length + 1);
            double[] above = new double[1002];
            double lk = 0;
            for (int e = 0; e < need1.length; e++) {
                if (lvC1[e] < lc && lvM1[e] < lm) { for (int x = 0; x < need1[e] && x <= 1000; x++) above[x] += w1[e]; }
                else lk += w1[e];
            }
            double[] p = new double[1001];
            for (int x = 0; x <= 1000; x++) p[x] = x * above[x];
            lack[h] = lk;
            phi[h] = p;
            return p;
        }

        boolean multiOk(int m, int h) {
            return multiLevelC[m] < h / (memLevels.length + 1) && multiLevelM[m] < h % (memLevels.length + 1);
        }

        long totalMib() { return totalMib; }
        int[] multiNeed() { return multiNeed; }
        int[] multiCount() { return multiCount; }
        double[] multiWeight() { return multiWeight; }
    }

    private Tables tables(long totalMib) {
        Tables t = last;
        if (t != null && t.totalMib() == totalMib) return t;
        t = bySize.computeIfAbsent(totalMib, Tables::new);
        last = t;
        return t;
    }

    /** The host level of a node with {@code cpuLeft} and {@code memLeft} free: how many CPU and memory levels it can host. */
    private int level(long cpuLeft, long memLeft) {
        return count(cpuLevels, cpuLeft) * (memLevels.length + 1) + count(memLevels, memLeft);
    }

    private static int count(long[] levels, long left) {
        if (left == CPU_UNKNOWN) return levels.length;
        int i = Arrays.binarySearch(levels, left);
        return i >= 0 ? i + 1 : -i - 1;
    }

    /** Free share of GPU {@code pos} in thousandths after charging {@code mib} and {@code core} more; 0 when unusable. */
    static int freePermille(NodeState s, int pos, long mib, int core) {
        if (!s.usable(pos)) return 0;
        long total = s.totalMib(pos);
        long mem = Math.max(0, s.freeMib(pos) - mib) * 1000 / total;
        long cores = Math.max(0, s.freeCore(pos) - core) * 10L;
        return (int) Math.min(1000, Math.min(mem, cores));
    }

    @Override public Evaluation evaluate(NodeState s, GpuDemand d) { return evaluate(s, d, CPU_UNKNOWN, 0); }

    /** The filter's question without building a reason: enough GPUs with room (and no UID conflict). */
    @Override public boolean fits(NodeState s, GpuDemand d) {
        if (s.gpuCount() > MAX_GPUS) return false;
        if (Fitting.candidates(s, d, SCRATCH.get().cand) < d.gpuCount()) return false;
        return !uidRule || Fitting.uidConflict(s, d) == null;
    }

    /** {@link #fits} on a node of at most {@link io.mpshare.core.ledger.FitIndex#WIDTH} GPUs is the room count (and, with the UID rule, no conflict). */
    @Override public boolean fitsByRoom(GpuDemand d) { return !uidRule || !d.underUidRule(); }

    /** With the UID rule: room first, then the UID conflict ({@link #evaluate}'s order). */
    @Override public boolean fitsByRoomUnderUidRule(GpuDemand d) { return uidRule; }

    /** A pure function of the snapshot and the demand: the policy and the demand name every other input. */
    @Override public Object scoreKey(GpuDemand d) { return List.of(this, d); }

    @Override public long score(NodeState s, GpuDemand d) {
        return fits(s, d) && evaluate(s, d) instanceof Evaluation.Fits f ? f.score() : NO_FIT;
    }

    /**
     * @param cpuLeft  the node's free CPU in thousandths of a core before the pod, or {@link #CPU_UNKNOWN}
     * @param podCpu   the pod's CPU request in thousandths of a core (host filters have checked it fits)
     */
    public Evaluation evaluate(NodeState s, GpuDemand d, long cpuLeft, long podCpu) {
        return evaluate(s, d, cpuLeft, podCpu, CPU_UNKNOWN, 0);
    }

    /**
     * @param memLeft the node's free memory (MiB) before the pod, or {@link #CPU_UNKNOWN}
     * @param podMem  the pod's memory request (MiB)
     */
    public Evaluation evaluate(NodeState s, GpuDemand d, long cpuLeft, long podCpu, long memLeft, long podMem) {
        int n = s.gpuCount();
        if (n > MAX_GPUS) return new Evaluation.Unresolvable("node has more than " + MAX_GPUS + " GPUs, which the fragmentation policy does not support: use --policy=binpack");
        Scratch x = SCRATCH.get();
        int[] cand = x.cand, before = x.before;
        int found = Fitting.candidates(s, d, cand);
        if (found < d.gpuCount()) return Fitting.explain(s, d, found);
        if (uidRule) {
            String why = Fitting.uidConflict(s, d);
            if (why != null) return new Evaluation.Unfit(why);
        }
        Tables[] tabs = x.tabs;
        int lb = level(cpuLeft, memLeft), la = level(after(cpuLeft, podCpu), after(memLeft, podMem));
        int all = 0;
        double phiB = 0, phiA = 0; // sums over the GPUs as they are, at the CPU level before and after
        for (int i = 0; i < n; i++) {
            long total = s.totalMib(i);
            Tables t = i > 0 && tabs[i - 1].totalMib() == total ? tabs[i - 1] : tables(total);
            tabs[i] = t;
            int b = freePermille(s, i, 0, 0);
            before[i] = b;
            all += b;
            phiB += t.phi(lb)[b];
            phiA += t.phi(la)[b];
        }
        Tables t0 = tabs[0];
        int multi = t0.multiNeed().length;
        if (x.fit.length < multi) { x.fit = new int[multi]; x.low = new long[multi]; }
        int[] fit = x.fit;
        long[] low = x.low;
        double fragB = phiB + t0.lack(lb) * all;
        for (int m = 0; m < multi; m++) {
            fit[m] = 0; low[m] = 0;
            for (int i = 0; i < n; i++) { if (before[i] >= tabs[i].multiNeed()[m]) fit[m]++; else low[m] += before[i]; }
            fragB += t0.multiWeight()[m] * (t0.multiOk(m, lb) && fit[m] >= t0.multiCount()[m] ? low[m] : all);
        }
        int[] chosen;
        double delta;
        int leftAfter, bestCost = 0;
        if (d.gpuCount() == 1) {
            int best = -1, bestAfter = 0;
            double bestDelta = 0;
            boolean costly = DomainCost.matters(s, d);
            for (int c = 0; c < found; c++) {
                int p = cand[c];
                // an equal GPU earlier scores the same and the first wins; with domains booked, equal room may cost differently
                if (!costly && sameAsEarlier(s, cand, before, c)) continue;
                int cost = costly ? DomainCost.of(s, p, d) : 0;
                int a = freePermille(s, p, d.chargeMib(), d.chargeCore());
                int allA = all - before[p] + a;
                double fragA = phiA - tabs[p].phi(la)[before[p]] + tabs[p].phi(la)[a] + t0.lack(la) * allA
                        + multiAfter(tabs, p, before[p], a, fit, low, allA, multi, la);
                double dl = fragA - fragB;
                if (best < 0 || cost < bestCost
                        || (cost == bestCost && (dl < bestDelta - 1e-9 || (dl <= bestDelta + 1e-9 && a < bestAfter)))) {
                    best = p; bestDelta = dl; bestAfter = a; bestCost = cost;
                }
            }
            chosen = new int[] {best};
            delta = bestDelta;
            leftAfter = all - before[best] + bestAfter;
        } else {
            chosen = tightest(s, cand, found, d.gpuCount());
            double phi = phiA;
            leftAfter = all;
            for (int p : chosen) {
                int a = freePermille(s, p, d.chargeMib(), d.chargeCore());
                phi += tabs[p].phi(la)[a] - tabs[p].phi(la)[before[p]];
                for (int m = 0; m < multi; m++) {
                    int need = tabs[p].multiNeed()[m];
                    if (before[p] >= need) fit[m]--; else low[m] -= before[p];
                    if (a >= need) fit[m]++; else low[m] += a;
                }
                leftAfter += a - before[p];
            }
            double fragA = phi + t0.lack(la) * leftAfter;
            for (int m = 0; m < multi; m++)
                fragA += t0.multiWeight()[m] * (t0.multiOk(m, la) && fit[m] >= t0.multiCount()[m] ? low[m] : leftAfter);
            delta = fragA - fragB;
        }
        return new Evaluation.Fits(chosen, DomainCost.weigh(score(delta, tieBreak == TieBreak.NAME_HASH ? nameRank(s.name()) : leftAfter), bestCost));
    }

    private static long after(long left, long ask) { return left == CPU_UNKNOWN ? left : left - ask; }

    /** The score: minus the increase in steps of {@code tolerance}; within a step, fewer {@code tieRank} first. */
    private long score(double delta, long tieRank) {
        long primary = -(long) Math.floor(delta / tolerance + 1e-6);
        return primary * TIE_SLOTS + (TIE_SLOTS - 1 - Math.min(Math.max(tieRank, 0), TIE_SLOTS - 1));
    }

    /** A node's place in the fixed pseudo-random order of {@link TieBreak#NAME_HASH}: 16 bits of a mixed hash of its name. */
    static long nameRank(String node) { return ((node.hashCode() * 0x9E3779B9L) >>> 16) & (TIE_SLOTS - 1); }

    /**
     * This policy as the extender applies it to one pod on one node whose free CPU it knows: what
     * {@link io.mpshare.core.ledger.Ledger#assume} needs so that bind picks the GPUs prioritize scored.
     */
    public PlacementPolicy forHost(long cpuLeft, long podCpu) { return forHost(cpuLeft, podCpu, CPU_UNKNOWN, 0); }

    /** {@link #forHost(long, long)} with the node's free memory and the pod's memory request too. */
    public PlacementPolicy forHost(long cpuLeft, long podCpu, long memLeft, long podMem) {
        return new PlacementPolicy() {
            @Override public String name() { return FragmentationPolicy.this.name(); }
            @Override public Evaluation evaluate(NodeState s, GpuDemand d) { return FragmentationPolicy.this.evaluate(s, d, cpuLeft, podCpu, memLeft, podMem); }
        };
    }

    /**
     * Score of a pod that asks CPU only ({@code podCpu}, thousandths of a core) on a node with {@code cpuLeft}
     * free: minus the growth of expected GPU fragmentation that taking the CPU causes; comparable with other
     * nodes' {@code hostScore} for the same pod. For the kube-scheduler side (a score plugin), not the extender.
     */
    public long hostScore(NodeState s, long cpuLeft, long podCpu) { return hostScore(s, cpuLeft, podCpu, CPU_UNKNOWN, 0); }

    /** {@link #hostScore(NodeState, long, long)} with the node's free memory and the pod's memory too. */
    public long hostScore(NodeState s, long cpuLeft, long podCpu, long memLeft, long podMem) {
        int n = s.gpuCount();
        int lb = level(cpuLeft, memLeft), la = level(after(cpuLeft, podCpu), after(memLeft, podMem));
        int all = 0;
        double fragB = 0, fragA = 0;
        int[] free = new int[n];
        for (int i = 0; i < n; i++) {
            Tables t = tables(s.totalMib(i));
            free[i] = freePermille(s, i, 0, 0);
            all += free[i];
            fragB += t.phi(lb)[free[i]];
            fragA += t.phi(la)[free[i]];
        }
        if (n == 0) return score(0, 0);
        Tables t0 = tables(s.totalMib(0));
        fragB += t0.lack(lb) * all;
        fragA += t0.lack(la) * all;
        for (int m = 0; m < t0.multiNeed().length; m++) {
            int fit = 0;
            long low = 0;
            for (int i = 0; i < n; i++) { if (free[i] >= tables(s.totalMib(i)).multiNeed()[m]) fit++; else low += free[i]; }
            boolean room = fit >= t0.multiCount()[m];
            fragB += t0.multiWeight()[m] * (t0.multiOk(m, lb) && room ? low : all);
            fragA += t0.multiWeight()[m] * (t0.multiOk(m, la) && room ? low : all);
        }
        return score(fragA - fragB, all);
    }

    /** Fragmentation of the multi-GPU entries when one GPU goes from {@code b} to {@code a} free thousandths, at CPU level {@code la}. */
    private static double multiAfter(Tables[] tabs, int p, int b, int a, int[] fit, long[] low, int allA, int multi, int la) {
        double f = 0;
        Tables t = tabs[p];
        for (int m = 0; m < multi; m++) {
            int need = t.multiNeed()[m];
            int fit2 = fit[m] - (b >= need ? 1 : 0) + (a >= need ? 1 : 0);
            long low2 = low[m] - (b >= need ? 0 : b) + (a >= need ? 0 : a);
            f += t.multiWeight()[m] * (t.multiOk(m, la) && fit2 >= t.multiCount()[m] ? low2 : allA);
        }
        return f;
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
