package io.mpshare.core.preempt;

import io.mpshare.core.ledger.Allocation;
import io.mpshare.core.ledger.Ledger;
import io.mpshare.core.ledger.NodeState;
import io.mpshare.core.model.GpuDemand;
import io.mpshare.core.model.PodKey;
import io.mpshare.core.policy.PlacementPolicy;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.Set;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.ToLongFunction;

/**
 * Which pods to preempt on one node so that a higher-priority pod gets room on its GPU(s).
 *
 * <p>Implementation notes.
 * <ul>
 * <li>Room is per GPU: a victim frees its charge (MiB and cores) on each GPU it is booked on. For each
 *     healthy GPU large enough for the demand, the cheapest set of victims booked there that frees
 *     enough memory <em>and</em> cores is found: fewest pods first, then the lowest highest victim
 *     priority, then the lowest sum of priorities, then pod names (so the answer is deterministic).</li>
 * <li>Only pods whose priority is known and strictly lower than the preemptor's are eligible (as in
 *     kube-scheduler); {@code eligible} says which bookings may be named at all (the caller excludes
 *     bookings kube-scheduler cannot see, such as unbound or UID-less ones).</li>
 * <li>The search is exact: subsets are tried by size from a lower bound (the fewest largest pods that
 *     could free the memory, and likewise the cores) upwards. It stops after {@value #BUDGET} subsets
 *     per GPU and then falls back to kube-scheduler's rule: take every eligible pod, give back the
 *     highest-priority ones while the room still suffices.</li>
 * <li>A demand on N GPUs: from each GPU as a start, the next GPU taken is the cheapest once the victims
 *     chosen so far are gone (a pod on several GPUs frees them all); the cheapest of these plans wins.</li>
 * <li>Pure: a snapshot and priorities in, a choice out.</li>
 * </ul>
 */
public final class VictimSelection {
    /** Subsets tried per GPU before the fallback. */
    static final int BUDGET = 20_000;

    private VictimSelection() {}

    /** The answer for one node. */
    public sealed interface Choice {
        /**
         * @param victims   the pods to preempt, lowest priority first (never empty)
         * @param gpuIndices NVML indices of the GPUs the preemptor is meant to take, ascending
         */
        record Victims(List<Allocation> victims, List<Integer> gpuIndices) implements Choice {
            public Victims {
                victims = List.copyOf(victims);
                gpuIndices = List.copyOf(gpuIndices);
                if (victims.isEmpty()) throw new IllegalArgumentException("a preemption names at least one victim");
            }
        }

        /** The demand already fits: nothing needs preempting here. */
        record NotNeeded(List<Integer> gpuIndices) implements Choice {}

        /** No set of lower-priority pods frees enough room on any GPU (or on enough GPUs). */
        record NoRoom(String reason) implements Choice {}
    }

    /** A candidate answer: the victims (lowest priority first) and the GPU positions they free. */
    private record Plan(List<Candidate> victims, List<Integer> positions) {
        int maxPriority() { int m = Integer.MIN_VALUE; for (Candidate c : victims) m = Math.max(m, c.priority()); return m; }
        long sumPriority() { long s = 0; for (Candidate c : victims) s += c.priority(); return s; }
        boolean betterThan(Plan o) {
            if (o == null) return true;
            if (victims.size() != o.victims.size()) return victims.size() < o.victims.size();
            if (maxPriority() != o.maxPriority()) return maxPriority() < o.maxPriority();
            if (sumPriority() != o.sumPriority()) return sumPriority() < o.sumPriority();
            return false; // equal cost: the earlier (lower positions) stays
        }
    }

    /**
     * @param priority  a booked pod's priority, empty when unknown (such a pod is never a victim)
     * @param eligible  whether a booking may be named as a victim at all
     */
    public static Choice choose(NodeState node, GpuDemand demand, int preemptorPriority,
                                Function<PodKey, OptionalInt> priority, Predicate<Allocation> eligible) {
        List<Candidate> all = new ArrayList<>();
        for (Allocation a : node.pods().values()) {
            if (!eligible.test(a)) continue;
            OptionalInt p = priority.apply(a.pod());
            if (p.isPresent() && p.getAsInt() < preemptorPriority) all.add(new Candidate(a, p.getAsInt()));
        }
        all.sort(Comparator.comparingInt(Candidate::priority).thenComparing(c -> c.booking().pod()));
        Plan best = null;
        for (int seed = 0; seed < node.gpuCount(); seed++) {
            Plan p = greedyFrom(node, demand, all, seed);
            if (p != null && p.betterThan(best)) best = p;
        }
        if (best == null)
            return new Choice.NoRoom("no " + (demand.gpuCount() == 1 ? "GPU" : demand.gpuCount() + " GPUs")
                    + " of this node can be freed for " + demand.chargeMib() + " MiB by preempting pods of lower priority than "
                    + preemptorPriority);
        List<Integer> gpus = new ArrayList<>();
        for (int pos : best.positions()) gpus.add(node.gpuIndex(pos));
        gpus.sort(null);
        if (best.victims().isEmpty()) return new Choice.NotNeeded(gpus);
        List<Candidate> v = new ArrayList<>(best.victims());
        v.sort(Comparator.comparingInt(Candidate::priority).thenComparing(c -> c.booking().pod()));
        return new Choice.Victims(v.stream().map(Candidate::booking).toList(), gpus);
    }

    /** Starting with GPU {@code seed}, takes the cheapest GPU given the victims chosen so far, until enough GPUs have room. */
    private static Plan greedyFrom(NodeState node, GpuDemand demand, List<Candidate> all, int seed) {
        if (!open(node, demand, seed)) return null;
        Set<Candidate> chosen = new LinkedHashSet<>();
        List<Integer> positions = new ArrayList<>();
        List<Candidate> step = cheapestOn(node, demand, all, chosen, seed);
        if (step == null) return null;
        chosen.addAll(step);
        positions.add(seed);
        while (positions.size() < demand.gpuCount()) {
            int bestPos = -1;
            List<Candidate> bestStep = null;
            for (int pos = 0; pos < node.gpuCount(); pos++) {
                if (positions.contains(pos) || !open(node, demand, pos)) continue;
                List<Candidate> s = cheapestOn(node, demand, all, chosen, pos);
                if (s != null && (bestStep == null || new Plan(s, List.of()).betterThan(new Plan(bestStep, List.of())))) { bestStep = s; bestPos = pos; }
            }
            if (bestStep == null) return null;
            chosen.addAll(bestStep);
            positions.add(bestPos);
        }
        return new Plan(new ArrayList<>(chosen), positions);
    }

    private static boolean open(NodeState node, GpuDemand demand, int pos) {
        return node.usable(pos) && node.totalMib(pos) >= demand.chargeMib();
    }

    /** The cheapest further victims on GPU {@code pos} once {@code chosen} are gone, or null. */
    private static List<Candidate> cheapestOn(NodeState node, GpuDemand demand, List<Candidate> all, Set<Candidate> chosen, int pos) {
        int index = node.gpuIndex(pos);
        long freedMib = 0, freedCore = 0;
        List<Candidate> here = new ArrayList<>();
        for (Candidate c : all) {
            if (!c.booking().gpuIndices().contains(index)) continue;
            if (chosen.contains(c)) { freedMib += c.mib(); freedCore += c.core(); }
            else here.add(c);
        }
        return cheapest(here, demand.chargeMib() - node.freeMib(pos) - freedMib, (int) (demand.chargeCore() - node.freeCore(pos) - freedCore));
    }

    private record Candidate(Allocation booking, int priority) {
        long mib() { return booking.demand().chargeMib(); }
        int core() { return booking.demand().chargeCore(); }
    }

    /** The cheapest subset freeing {@code needMib} and {@code needCore}, or null when even all of them do not. */
    static List<Candidate> cheapest(List<Candidate> cands, long needMib, int needCore) {
        if (needMib <= 0 && needCore <= 0) return List.of();
        long allMib = 0, allCore = 0;
        for (Candidate c : cands) { allMib += c.mib(); allCore += c.core(); }
        if (allMib < needMib || allCore < needCore) return null;
        // stable order for ties: lowest priority, then name
        List<Candidate> cs = new ArrayList<>(cands);
        cs.sort(Comparator.comparingInt(Candidate::priority).thenComparing(c -> c.booking().pod()));
        int from = Math.max(lowerBound(cs, needMib, Candidate::mib), lowerBound(cs, needCore, c -> (long) c.core()));
        int[] budget = {BUDGET};
        for (int k = Math.max(1, from); k <= cs.size(); k++) {
            Search s = new Search(cs, needMib, needCore, k, budget);
            s.run(0, 0, 0, 0);
            if (s.best != null) return s.best;
            if (budget[0] <= 0) break;
        }
        return reprieve(cs, needMib, needCore);
    }

    /** The fewest pods, largest first, that could free {@code need} in one dimension. */
    private static int lowerBound(List<Candidate> cs, long need, ToLongFunction<Candidate> size) {
        if (need <= 0) return 0;
        long[] s = cs.stream().mapToLong(size).sorted().toArray();
        long got = 0;
        for (int i = s.length - 1, k = 1; i >= 0; i--, k++) if ((got += s[i]) >= need) return k;
        return s.length;
    }

    /** kube-scheduler's rule: everything eligible, then give back the highest priority first while room suffices. */
    private static List<Candidate> reprieve(List<Candidate> cs, long needMib, int needCore) {
        List<Candidate> victims = new ArrayList<>(cs);
        long mib = 0, core = 0;
        for (Candidate c : cs) { mib += c.mib(); core += c.core(); }
        for (int i = cs.size() - 1; i >= 0; i--) {
            Candidate c = cs.get(i);
            if (mib - c.mib() >= needMib && core - c.core() >= needCore) { victims.remove(c); mib -= c.mib(); core -= c.core(); }
        }
        return victims;
    }

    /** Subsets of exactly {@code k} pods in priority order; keeps the best that frees enough. */
    private static final class Search {
        final List<Candidate> cs;
        final long needMib;
        final int needCore, k;
        final int[] budget;
        final Candidate[] cur;
        List<Candidate> best;
        int bestMax;
        long bestSum;

        Search(List<Candidate> cs, long needMib, int needCore, int k, int[] budget) {
            this.cs = cs; this.needMib = needMib; this.needCore = needCore; this.k = k; this.budget = budget;
            this.cur = new Candidate[k];
        }

        void run(int from, int depth, long mib, long core) {
            if (budget[0]-- <= 0) return;
            if (depth == k) {
                if (mib >= needMib && core >= needCore) consider();
                return;
            }
            for (int i = from; i <= cs.size() - (k - depth); i++) {
                Candidate c = cs.get(i);
                // candidates are in priority order: once the highest so far is worse than the best found, stop
                if (best != null && c.priority() > bestMax) return;
                cur[depth] = c;
                run(i + 1, depth + 1, mib + c.mib(), core + c.core());
                if (budget[0] <= 0) return;
            }
        }

        private void consider() {
            int max = Integer.MIN_VALUE;
            long sum = 0;
            for (Candidate c : cur) { max = Math.max(max, c.priority()); sum += c.priority(); }
            if (best == null || max < bestMax || (max == bestMax && sum < bestSum)) {
                best = List.of(cur.clone());
                bestMax = max;
                bestSum = sum;
            }
        }
    }

    /**
     * Whether {@code policy} lets {@code demand} onto {@code node} once {@code victims} are gone: the room is counted
     * per GPU above, but a policy may refuse for other reasons (with the UID rule, another UID's pod left on the node).
     */
    public static boolean freesRoom(NodeState node, List<Allocation> victims, GpuDemand demand, PlacementPolicy policy) {
        Ledger scratch = new Ledger(InstantSource.fixed(Instant.EPOCH), Duration.ZERO);
        scratch.upsertNode(node.inventory());
        Set<PodKey> gone = new HashSet<>();
        for (Allocation v : victims) gone.add(v.pod());
        for (Allocation a : node.pods().values()) if (!gone.contains(a.pod())) scratch.restore(a);
        return policy.fits(scratch.node(node.name()), demand);
    }

    /** Positions helper for callers that hold the priorities in a map. */
    public static Function<PodKey, OptionalInt> from(Map<PodKey, Integer> priorities) {
        return k -> { Integer p = priorities.get(k); return p == null ? OptionalInt.empty() : OptionalInt.of(p); };
    }
}
