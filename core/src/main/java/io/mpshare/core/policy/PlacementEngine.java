package io.mpshare.core.policy;

import io.mpshare.core.Names;
import io.mpshare.core.ledger.Allocation;
import io.mpshare.core.ledger.AssumeResult;
import io.mpshare.core.ledger.FitIndex;
import io.mpshare.core.ledger.Ledger;
import io.mpshare.core.ledger.NodeState;
import io.mpshare.core.model.GpuDemand;
import io.mpshare.core.model.PodKey;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Runs one {@link PlacementPolicy} over many nodes of a {@link Ledger}: the extender's filter,
 * prioritize and bind, and the simulator's placement loop, all go through here.
 */
public final class PlacementEngine {
    /** kube-scheduler's MaxExtenderPriority. */
    public static final int MAX_SCORE = 10;

    private final Ledger ledger;
    private final PlacementPolicy policy;
    private final ScoreBoard boards = new ScoreBoard();

    public PlacementEngine(Ledger ledger, PlacementPolicy policy) {
        this.ledger = ledger;
        this.policy = policy;
    }

    public Ledger ledger() { return ledger; }
    public PlacementPolicy policy() { return policy; }

    /** Outcome of a filter: nodes kept (in the order asked), and the reasons for the others. */
    public record FilterOutcome(List<String> fits, Map<String, String> failed, Map<String, String> unresolvable) {}

    /**
     * Keeps the nodes where {@code d} fits. When the policy's fit is "enough GPUs with room"
     * ({@link PlacementPolicy#fitsByRoom}) the answer for each node comes from the ledger's {@link FitIndex}
     * (two flat arrays, no snapshot read); only nodes the index cannot keep (too little room, unknown,
     * more GPUs than it holds inline) are asked of their snapshot, which also gives the reason. Under the UID
     * rule ({@link PlacementPolicy#fitsByRoomUnderUidRule}) a pod of known UID is answered from the index too:
     * a node with room whose UID summary conflicts gets {@link Fitting#uidConflictReason} without a snapshot read.
     */
    public FilterOutcome filter(GpuDemand d, List<String> nodeNames) {
        int n = nodeNames.size();
        List<String> fits = new ArrayList<>(n);
        Map<String, String> failed = new LinkedHashMap<>();
        Map<String, String> unresolvable = new LinkedHashMap<>();
        long uid = indexUid(d);
        if (uid == SNAPSHOTS) {
            NodeState[] states = snapshots(nodeNames);
            for (int i = 0; i < n; i++) judge(nodeNames.get(i), states[i], d, fits, failed, unresolvable);
            return new FilterOutcome(fits, failed, unresolvable);
        }
        FitIndex.View v = ledger.fitIndex().view();
        int[] slots = new int[n];
        for (int i = 0; i < n; i++) slots[i] = v.slot(nodeNames.get(i)); // a tight pass: the lookups' misses overlap
        long mib = d.chargeMib();
        int core = d.chargeCore(), k = d.gpuCount();
        String uidReason = uid == FitIndex.NO_UID ? null : Fitting.uidConflictReason(uid);
        for (int i = 0; i < n; i++) {
            String name = nodeNames.get(i);
            int room = v.room(slots[i], mib, core, k, uid);
            if (room >= k) fits.add(name);
            else if (room == FitIndex.UID_CONFLICT) failed.put(name, uidReason);
            else judge(name, ledger.node(name), d, fits, failed, unresolvable);
        }
        return new FilterOutcome(fits, failed, unresolvable);
    }

    /** {@link #indexUid}: the filter cannot use the index for this demand; every node is asked of its snapshot. */
    private static final long SNAPSHOTS = Long.MIN_VALUE;

    /**
     * How the filter answers {@code d}: from the index without a UID check ({@link FitIndex#NO_UID}), from the index
     * with the pod's UID checked against each node's summary (the UID), or from the snapshots ({@link #SNAPSHOTS}).
     */
    private long indexUid(GpuDemand d) {
        if (policy.fitsByRoom(d)) return FitIndex.NO_UID;
        if (d.underUidRule() && FitIndex.inlineUid(d.runAsUser().getAsLong()) && policy.fitsByRoomUnderUidRule(d))
            return d.runAsUser().getAsLong();
        return SNAPSHOTS;
    }

    /**
     * Outcome of {@link #filter(GpuDemand, byte[], int[], int[], int)}: the positions (in the request) of the
     * nodes kept, {@code fits[0..fitCount)} ascending, and the reasons for the others by name.
     */
    public record IndexedOutcome(int[] fits, int fitCount, Map<String, String> failed, Map<String, String> unresolvable, int[] slots) {
        /** @param slots each request position's slot in the ledger's {@link FitIndex} (-1: unknown name), or null when not looked up */
        public IndexedOutcome {}

        public IndexedOutcome(int[] fits, int fitCount, Map<String, String> failed, Map<String, String> unresolvable) {
            this(fits, fitCount, failed, unresolvable, null);
        }
    }

    /**
     * {@link #filter(GpuDemand, List)} over names given as UTF-8 bytes: name {@code i} is
     * {@code buf[off[i], off[i]+len[i])}. Strings are built only for nodes that do not fit (their reasons),
     * so a request's names can be looked up straight from its body and echoed back by copying bytes.
     */
    public IndexedOutcome filter(GpuDemand d, byte[] buf, int[] off, int[] len, int count) {
        return filter(d, buf, off, len, null, count);
    }

    /** The same with each name's {@link FitIndex#hash} given ({@code hashes[i]}; null: computed here). */
    public IndexedOutcome filter(GpuDemand d, byte[] buf, int[] off, int[] len, int[] hashes, int count) {
        int[] fits = new int[count];
        int m = 0;
        Map<String, String> failed = new LinkedHashMap<>();
        Map<String, String> unresolvable = new LinkedHashMap<>();
        List<String> one = new ArrayList<>(1);
        long uid = indexUid(d);
        if (uid == SNAPSHOTS) {
            for (int i = 0; i < count; i++) {
                String name = new String(buf, off[i], len[i], StandardCharsets.UTF_8);
                one.clear();
                judge(name, ledger.node(name), d, one, failed, unresolvable);
                if (!one.isEmpty()) fits[m++] = i;
            }
            return new IndexedOutcome(fits, m, failed, unresolvable);
        }
        FitIndex.View v = ledger.fitIndex().view();
        int[] slots = fits; // slots[i] is read before fits[m] is written, and m <= i: one array serves both
        if (hashes == null) for (int i = 0; i < count; i++) slots[i] = v.slot(buf, off[i], len[i]);
        else for (int i = 0; i < count; i++) slots[i] = v.slot(buf, off[i], len[i], hashes[i]);
        long mib = d.chargeMib();
        int core = d.chargeCore(), k = d.gpuCount();
        String uidReason = uid == FitIndex.NO_UID ? null : Fitting.uidConflictReason(uid);
        for (int i = 0; i < count; i++) {
            int room = v.room(slots[i], mib, core, k, uid);
            if (room >= k) { fits[m++] = i; continue; }
            String name = new String(buf, off[i], len[i], StandardCharsets.UTF_8);
            if (room == FitIndex.UID_CONFLICT) { failed.put(name, uidReason); continue; }
            one.clear();
            judge(name, ledger.node(name), d, one, failed, unresolvable);
            if (!one.isEmpty()) fits[m++] = i;
        }
        return new IndexedOutcome(fits, m, failed, unresolvable);
    }

    /** The reason for a node the ledger does not know (the same words for every such node, so kube-scheduler groups them). */
    public static final String NO_INVENTORY = "not an mpshare GPU node (publishes no mpshare GPU inventory): label it " + Names.NODE_LABEL_SCHEDULE + "="
            + Names.NODE_LABEL_SCHEDULE_MPS + " and run the mpshare device plugin there";

    /**
     * {@link #filter(GpuDemand, byte[], int[], int[], int[], int)} for the pod {@code self}: its own booking (a
     * pipelining hold, or an assumption left by an interrupted bind) never counts against it, so the one node
     * that holds it is judged as if the booking were not there.
     */
    public IndexedOutcome filter(GpuDemand d, byte[] buf, int[] off, int[] len, int[] hashes, int count, PodKey self) {
        IndexedOutcome o = filter(d, buf, off, len, hashes, count);
        String own = ownNodeRefused(self, d, o.failed(), o.unresolvable());
        if (own == null) return o;
        int at = position(own, buf, off, len, count);
        return at < 0 ? o : new IndexedOutcome(o.fits(), insert(o.fits(), o.fitCount(), at), o.failed(), o.unresolvable());
    }

    /** Which refusals a filter spells out. */
    public enum Reasons {
        /** A reason for every node refused. */
        ALWAYS,
        /**
         * Reasons only when no node is kept: with a node kept, the refused ones are left out without a reason (the
         * outcome's maps are empty). kube-scheduler reads the reasons only when a pod fits nowhere (its FailedScheduling
         * event, preemption's candidates) and drops them when a node passes, and building them (a String and a map
         * entry per refused node, the bytes of the reply) is most of a filter's cost where many nodes are full.
         */
        WHEN_NONE_KEPT
    }

    /**
     * {@link #filter(GpuDemand, byte[], int[], int[], int[], int, PodKey)} with the refusals {@code reasons} asks for.
     * {@link Reasons#WHEN_NONE_KEPT} keeps exactly the nodes {@link Reasons#ALWAYS} keeps: a node the index counts
     * too little room (exact for nodes of up to {@link FitIndex#WIDTH} GPUs), a UID conflict or no inventory is
     * refused without its snapshot, other nodes are asked {@link PlacementPolicy#fits}, and the node of
     * {@code self}'s own booking is judged without it; when nothing is kept the filter runs again with every reason.
     */
    public IndexedOutcome filter(GpuDemand d, byte[] buf, int[] off, int[] len, int[] hashes, int count, PodKey self, Reasons reasons) {
        if (reasons == Reasons.ALWAYS) return filter(d, buf, off, len, hashes, count, self);
        long uid = indexUid(d);
        int[] fits = new int[count];
        int m = 0;
        FitIndex.View v = ledger.fitIndex().view();
        int[] slots = new int[count]; // given back: prioritize and the shortlist score the nodes kept by slot
        long mib = d.chargeMib();
        int core = d.chargeCore(), k = d.gpuCount();
        boolean refused = false;
        for (int i = 0; i < count; i++) { // each name looked up and its room read in one step, while its slot is in cache
            int room = FitIndex.WIDE; // by snapshot: the index is not asked
            if (uid != SNAPSHOTS) {
                slots[i] = hashes == null ? v.slot(buf, off[i], len[i]) : v.slot(buf, off[i], len[i], hashes[i]);
                room = v.room(slots[i], mib, core, k, uid);
            }
            if (room >= k) { fits[m++] = i; continue; }
            if ((room == FitIndex.WIDE || room == FitIndex.UID_UNSURE) // the index cannot say: the node's snapshot does
                    && keeps(ledger.node(new String(buf, off[i], len[i], StandardCharsets.UTF_8)), d)) { fits[m++] = i; continue; }
            refused = true;
        }
        if (refused && self != null) { // the pod's own booking counted against its node: judged again without it
            var own = ledger.allocation(self);
            int at = own.isEmpty() ? -1 : position(own.get().node(), buf, off, len, count);
            if (at >= 0 && Arrays.binarySearch(fits, 0, m, at) < 0) {
                NodeState s = ledger.node(own.get().node());
                if (s != null && keeps(s.exceptPod(self), d)) m = insert(fits, m, at);
            }
        }
        if (m == 0 && count > 0) return filter(d, buf, off, len, hashes, count, self); // refused everywhere: every reason
        return new IndexedOutcome(fits, m, Map.of(), Map.of(), uid == SNAPSHOTS ? null : slots);
    }

    /** What {@link #judge} keeps, without the reason of a refusal. */
    private boolean keeps(NodeState s, GpuDemand d) {
        return s != null && (policy.fits(s, d) || policy.evaluate(s, d) instanceof Evaluation.Fits);
    }

    /** The position of {@code name} among the names in {@code buf}, or -1. */
    private static int position(String name, byte[] buf, int[] off, int[] len, int count) {
        byte[] nb = name.getBytes(StandardCharsets.UTF_8);
        for (int i = 0; i < count; i++)
            if (len[i] == nb.length && Arrays.equals(buf, off[i], off[i] + len[i], nb, 0, nb.length)) return i;
        return -1;
    }

    /** Inserts position {@code at} into the ascending {@code fits[0..m)} (which has room for it); the new count. */
    private static int insert(int[] fits, int m, int at) {
        int i = m;
        while (i > 0 && fits[i - 1] > at) { fits[i] = fits[i - 1]; i--; }
        fits[i] = at;
        return m + 1;
    }

    /** {@link #filter(GpuDemand, List)} for the pod {@code self}, its own booking not counted (as above). */
    public FilterOutcome filter(GpuDemand d, List<String> nodeNames, PodKey self) {
        FilterOutcome o = filter(d, nodeNames);
        String own = ownNodeRefused(self, d, o.failed(), o.unresolvable());
        if (own == null) return o;
        List<String> fits = new ArrayList<>(o.fits().size() + 1);
        for (String n : nodeNames) if (n.equals(own) || o.fits().contains(n)) fits.add(n);
        return new FilterOutcome(fits, o.failed(), o.unresolvable());
    }

    /**
     * The node of {@code self}'s booking when the filter refused it but it fits once the booking is left out;
     * then removed from the refusal maps. Null otherwise (the common case: one map lookup).
     */
    private String ownNodeRefused(PodKey self, GpuDemand d, Map<String, String> failed, Map<String, String> unresolvable) {
        if (self == null) return null;
        var own = ledger.allocation(self);
        if (own.isEmpty()) return null;
        String node = own.get().node();
        if (!failed.containsKey(node) && !unresolvable.containsKey(node)) return null;
        NodeState s = ledger.node(node);
        if (s == null) return null;
        NodeState base = s.exceptPod(self);
        if (!policy.fits(base, d) && !(policy.evaluate(base, d) instanceof Evaluation.Fits)) return null;
        failed.remove(node);
        unresolvable.remove(node);
        return node;
    }

    /** One node the fast path did not keep: the policy's own answer on its snapshot, with the reason. */
    private void judge(String name, NodeState s, GpuDemand d, List<String> fits, Map<String, String> failed, Map<String, String> unresolvable) {
        if (s == null) {
            unresolvable.put(name, NO_INVENTORY);
            return;
        }
        if (policy.fits(s, d)) { fits.add(name); return; } // fast path: no reason needed
        switch (policy.evaluate(s, d)) {
            case Evaluation.Fits f -> fits.add(name);
            case Evaluation.Unfit u -> failed.put(name, u.reason());
            case Evaluation.Unresolvable u -> unresolvable.put(name, u.reason());
        }
    }

    /**
     * The ledger's snapshot of each named node (null where unknown), looked up in a first, tight pass: the
     * lookups are independent, so the CPU overlaps their cache misses; interleaved with evaluation they
     * would not be (measured 3-4x slower over 5,000 nodes, docs/benchmarks.md).
     */
    private NodeState[] snapshots(List<String> nodeNames) {
        NodeState[] states = new NodeState[nodeNames.size()];
        int i = 0;
        for (String name : nodeNames) states[i++] = ledger.node(name);
        return states;
    }

    public record NodeScore(String node, int score) {}

    /**
     * Scores each node 0..{@link #MAX_SCORE}: min-max over the nodes that fit, where only the nodes with the best
     * raw score get {@link #MAX_SCORE} and the others at most one less; nodes that don't fit score 0.
     */
    public List<NodeScore> prioritize(GpuDemand d, List<String> nodeNames) { return prioritize(d, nodeNames, null); }

    /** The same for the pod {@code self}: its own booking does not count against it (null: no pod to leave out). */
    public List<NodeScore> prioritize(GpuDemand d, List<String> nodeNames, PodKey self) {
        FitIndex.View v = ledger.fitIndex().view();
        int[] slots = new int[nodeNames.size()];
        for (int i = 0; i < slots.length; i++) slots[i] = v.slot(nodeNames.get(i));
        int[] scores = scores(d, v, slots, self);
        List<NodeScore> out = new ArrayList<>(slots.length);
        for (int i = 0; i < slots.length; i++) out.add(new NodeScore(nodeNames.get(i), scores[i]));
        return out;
    }

    /**
     * {@link #prioritize(GpuDemand, List, PodKey)} over names given as UTF-8 bytes, as {@link #filter(GpuDemand, byte[],
     * int[], int[], int[], int, PodKey)} takes them ({@code hashes} may be null): the score of each position, with no
     * String built per node.
     */
    public int[] prioritize(GpuDemand d, byte[] buf, int[] off, int[] len, int[] hashes, int count, PodKey self) {
        FitIndex.View v = ledger.fitIndex().view();
        int[] slots = new int[count];
        if (hashes == null) for (int i = 0; i < count; i++) slots[i] = v.slot(buf, off[i], len[i]);
        else for (int i = 0; i < count; i++) slots[i] = v.slot(buf, off[i], len[i], hashes[i]);
        return scores(d, v, slots, self);
    }

    /**
     * {@link #prioritize(GpuDemand, byte[], int[], int[], int[], int, PodKey)} of the nodes in the ledger's index
     * {@code slots} (as a filter found them, {@link IndexedOutcome#slots}; -1: a name the ledger never knew): the score
     * of each, with no name looked up again.
     */
    public int[] prioritize(GpuDemand d, int[] slots, PodKey self) {
        return scores(d, ledger.fitIndex().view(), slots, self);
    }

    /**
     * Scores by position of the nodes in index {@code slots} (-1: a name the ledger never knew, which does not fit),
     * each node read from the index's snapshot at its version. A node's raw score comes from {@link ScoreBoard} while
     * the node's version is the one it was scored at ({@link PlacementPolicy#scoreKey}); the node of {@code self}'s own
     * booking is always scored, without that booking.
     */
    private int[] scores(GpuDemand d, FitIndex.View v, int[] slots, PodKey self) {
        long[] raw = new long[slots.length];
        new RawScores(d, v, self).of(slots, raw);
        long min = Long.MAX_VALUE, max = Long.MIN_VALUE;
        for (long score : raw) if (score != PlacementPolicy.NO_FIT) { min = Math.min(min, score); max = Math.max(max, score); }
        int[] out = new int[raw.length];
        for (int i = 0; i < raw.length; i++)
            // the best raw score alone gets MAX_SCORE (others at most one less), so the policy's choice stays first
            out[i] = raw[i] == PlacementPolicy.NO_FIT ? 0
                    : raw[i] == max ? MAX_SCORE : (int) Math.min(MAX_SCORE - 1, Math.round((double) (raw[i] - min) * MAX_SCORE / (double) (max - min)));
        return out;
    }

    /**
     * The node prioritize would rank first among the nodes in index slots {@code slots[at[0..count)]} (as a filter found
     * them, {@code at} its positions of the nodes kept): the position in {@code at} of the first with the best raw score,
     * or -1 when none fits. The same node as the first top score of {@link #prioritize(GpuDemand, int[], PodKey)} over
     * those slots, without normalising every score.
     */
    public int best(GpuDemand d, int[] slots, int[] at, int count, PodKey self) {
        RawScores scores = new RawScores(d, ledger.fitIndex().view(), self);
        int best = -1;
        long top = 0;
        for (int i = 0; i < count; i++) { // no array of scores: a pick over 5,000 nodes would allocate 40 KB for one node
            long score = scores.of(slots[at[i]]);
            if (score != PlacementPolicy.NO_FIT && (best < 0 || score > top)) { best = i; top = score; }
        }
        return best;
    }

    /** The raw scores of one pod's demand, each node's from {@link ScoreBoard} while its version stays (see {@link #scores}). */
    private final class RawScores {
        private final GpuDemand d;
        private final FitIndex.View v;
        private final PodKey self;
        private final String own;
        private final int ownSlot;
        private final PlacementPolicy p;
        private final ScoreBoard.Board board;

        RawScores(GpuDemand d, FitIndex.View v, PodKey self) {
            this.d = d;
            this.v = v;
            this.self = self;
            own = self == null ? null : ledger.allocation(self).map(Allocation::node).orElse(null);
            ownSlot = own == null ? -1 : v.slot(own);
            p = self == null ? policy : policy.forPod(self);
            board = boards.board(p.scoreKey(d), v.capacity());
        }

        /** The raw score of each node in {@code slots} into {@code raw} at its position. */
        void of(int[] slots, long[] raw) {
            for (int i = 0; i < slots.length; i++) raw[i] = of(slots[i]);
        }

        /** The raw score of the node in {@code slot} (-1: a name the ledger never knew, which does not fit). */
        long of(int slot) {
            if (slot < 0) return PlacementPolicy.NO_FIT;
            if (slot != ownSlot) return board.score(v, slot, p, d);
            NodeState s = ledger.node(own);
            return s == null ? PlacementPolicy.NO_FIT : p.score(s.exceptPod(self), d);
        }
    }

    /** The best node among {@code nodeNames} by raw score; ties go to the smaller name. Null when none fits. */
    public String bestNode(GpuDemand d, Iterable<String> nodeNames) {
        String best = null;
        long bestScore = Long.MIN_VALUE;
        for (String name : nodeNames) {
            NodeState s = ledger.node(name);
            long score = s == null ? PlacementPolicy.NO_FIT : policy.score(s, d);
            if (score != PlacementPolicy.NO_FIT
                    && (best == null || score > bestScore || (score == bestScore && name.compareTo(best) < 0))) {
                best = name; bestScore = score;
            }
        }
        return best;
    }

    /** Books the pod on {@code node} with this engine's policy. */
    public AssumeResult assume(PodKey pod, String uid, String node, GpuDemand d) {
        return ledger.assume(pod, uid, node, d, policy.forPod(pod));
    }
}
