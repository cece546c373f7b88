package io.mpshare.scheduler.verbs;

import io.mpshare.core.model.GpuDemand;
import io.mpshare.core.model.PodKey;
import io.mpshare.core.policy.PlacementEngine;
import io.mpshare.core.policy.PlacementEngine.FilterOutcome;
import io.mpshare.core.policy.PlacementEngine.NodeScore;
import io.mpshare.kube.PodFacts;
import io.mpshare.scheduler.cycle.Ask;
import io.mpshare.scheduler.cycle.AskReader;
import io.mpshare.scheduler.cycle.HeldRoom;
import io.mpshare.scheduler.cycle.PipelineHolds;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Filter and prioritize in domain terms: a pod's {@link Ask} (read once per verb call, {@link #ask}) and candidate
 * node names in, an answer out. Pods that ask for no shared GPU pass through untouched; a pod whose request can
 * never be met anywhere (bad quantity, uneven split) is answered with an error that says what to change.
 */
public final class Verbs {
    private final PlacementEngine engine;
    private final AskReader asks;
    private final PipelineHolds holds;
    private final HeldRoom held;
    private final int shortlist;
    private final boolean pickInFilter;

    /** @param holds where prioritize holds the room of the node it ranks first until the pod's bind ({@link PipelineHolds#off} for none) */
    public Verbs(PlacementEngine engine, AskReader asks, PipelineHolds holds) { this(engine, asks, holds, HeldRoom.NONE); }

    /** @param held room nominated pods hold: prioritize scores a node 0 for a pod that may not have it now, and holds nothing there */
    public Verbs(PlacementEngine engine, AskReader asks, PipelineHolds holds, HeldRoom held) { this(engine, asks, holds, held, 0); }

    /**
     * @param shortlist a filter answer keeps at most this many nodes, those the policy ranks best ({@link #shortlist}); 0
     *                  keeps every node that fits
     */
    public Verbs(PlacementEngine engine, AskReader asks, PipelineHolds holds, HeldRoom held, int shortlist) {
        this(engine, asks, holds, held, shortlist, false);
    }

    /**
     * @param pickInFilter a GPU pod that states no preference kube-scheduler scores gets one node from the filter, the
     *                     policy's choice, held for its bind ({@link #shortlist(Ask, IndexedFilterAnswer, byte[], int[], int[], int[], boolean)})
     */
    public Verbs(PlacementEngine engine, AskReader asks, PipelineHolds holds, HeldRoom held, int shortlist, boolean pickInFilter) {
        if (shortlist < 0 || shortlist == 1) throw new IllegalArgumentException("shortlist must be 0 (every node that fits) or at least 2, got " + shortlist);
        this.engine = engine;
        this.asks = asks;
        this.holds = holds;
        this.held = held;
        this.shortlist = shortlist;
        this.pickInFilter = pickInFilter;
    }

    public PipelineHolds holds() { return holds; }

    public PlacementEngine engine() { return engine; }

    public AskReader asks() { return asks; }

    /** What the pod of a request asks: read once per verb call and handed to everything the call does. */
    public Ask ask(PodFacts facts) { return asks.read(facts); }

    /** A filter answer: nodes kept, nodes refused (with reasons), or an error for the whole request. */
    public record FilterAnswer(List<String> fits, Map<String, String> failed, Map<String, String> unresolvable, String error) {
        public static FilterAnswer error(String why) { return new FilterAnswer(List.of(), Map.of(), Map.of(), why); }
    }

    public FilterAnswer filter(Ask ask, List<String> nodeNames) {
        return switch (ask) {
            case Ask.None n -> new FilterAnswer(nodeNames, Map.of(), Map.of(), "");
            case Ask.Bad b -> FilterAnswer.error(b.reason());
            case Ask.Gpu g -> {
                FilterOutcome o = engine.filter(g.demand(), nodeNames, g.pod().key());
                yield new FilterAnswer(o.fits(), o.failed(), o.unresolvable(), "");
            }
        };
    }

    /**
     * A filter answer over names given as bytes ({@link PlacementEngine#filter(GpuDemand, byte[], int[], int[], int[], int, PodKey)}):
     * the positions of the nodes kept, {@code fits[0..fitCount)}, reasons for the others, or an error.
     */
    public record IndexedFilterAnswer(int[] fits, int fitCount, Map<String, String> failed, Map<String, String> unresolvable, String error, int[] slots) {
        /** @param slots each request position's slot in the ledger's index, as the engine's filter found them, or null */
        public IndexedFilterAnswer {}

        public IndexedFilterAnswer(int[] fits, int fitCount, Map<String, String> failed, Map<String, String> unresolvable, String error) {
            this(fits, fitCount, failed, unresolvable, error, null);
        }
    }

    public IndexedFilterAnswer filter(Ask ask, byte[] buf, int[] off, int[] len, int[] hashes, int count) {
        return filter(ask, buf, off, len, hashes, count, PlacementEngine.Reasons.ALWAYS);
    }

    /** {@link #filter(Ask, byte[], int[], int[], int[], int)} spelling out the refusals {@code reasons} asks for. */
    public IndexedFilterAnswer filter(Ask ask, byte[] buf, int[] off, int[] len, int[] hashes, int count, PlacementEngine.Reasons reasons) {
        return switch (ask) {
            case Ask.None n -> {
                int[] all = new int[count];
                for (int i = 0; i < count; i++) all[i] = i;
                yield new IndexedFilterAnswer(all, count, Map.of(), Map.of(), "");
            }
            case Ask.Bad b -> new IndexedFilterAnswer(new int[0], 0, Map.of(), Map.of(), b.reason());
            case Ask.Gpu g -> {
                PlacementEngine.IndexedOutcome o = engine.filter(g.demand(), buf, off, len, hashes, count, g.pod().key(), reasons);
                yield new IndexedFilterAnswer(o.fits(), o.fitCount(), o.failed(), o.unresolvable(), "", o.slots());
            }
        };
    }

    /**
     * A GPU pod's filter answer cut to the {@code shortlist} nodes the policy ranks best (docs/decisions/filter-shortlist.md):
     * kube-scheduler runs its own score plugins and sends to prioritize only the nodes the filter kept, so on a large
     * cluster those are most of what a GPU pod costs it. The kept nodes are ranked by the scores prioritize would give
     * them ({@link PlacementEngine#prioritize(GpuDemand, byte[], int[], int[], int[], int, PodKey)}: the best alone gets
     * the top score), every node of a better score before any of a worse one, ties in request order; the answer keeps
     * request order. So the node prioritize then ranks first (and holds) is the one it would have ranked first among
     * every node kept: the first of the top score in request order. Answers with no more nodes than the shortlist, and
     * those of pods without GPU demand, are given back as they are.
     */
    public IndexedFilterAnswer shortlist(Ask ask, IndexedFilterAnswer a, byte[] buf, int[] off, int[] len, int[] hashes) {
        return shortlist(ask, a, buf, off, len, hashes, true);
    }

    /**
     * {@link #shortlist(Ask, IndexedFilterAnswer, byte[], int[], int[], int[])} for a pod that states a preference
     * kube-scheduler scores ({@code prefers}) or not. With {@code pickInFilter} on, a GPU pod without one gets one node:
     * the one prioritize would rank first over every node kept (docs/decisions/pick-in-filter.md). kube-scheduler skips
     * its scoring and prioritize when one node is left, so a one-node answer, whatever made it one, takes the
     * pipelining hold on that node here ({@link PipelineHolds#hold}), as prioritize would have.
     */
    public IndexedFilterAnswer shortlist(Ask ask, IndexedFilterAnswer a, byte[] buf, int[] off, int[] len, int[] hashes, boolean prefers) {
        if (!(ask instanceof Ask.Gpu g) || !a.error().isEmpty()) return a;
        int n = a.fitCount();
        int keep = pickInFilter && !prefers ? 1 : shortlist;
        if (keep == 0 || n <= keep) {
            if (n == 1) holds.hold(g, name(buf, off, len, a.fits()[0]));
            return a;
        }
        int[] fits = a.fits();
        if (keep == 1 && a.slots() != null) { // the pick: prioritize's first choice, with no score normalised
            int best = Math.max(0, engine.best(g.demand(), a.slots(), fits, n, g.pod().key())); // none scored: the first, as ranked
            holds.hold(g, name(buf, off, len, fits[best]));
            return new IndexedFilterAnswer(new int[] {fits[best]}, 1, a.failed(), a.unresolvable(), a.error(), a.slots());
        }
        int[] scores;
        if (a.slots() != null) { // the slots the filter found: no name looked up again
            int[] kept = new int[n];
            for (int i = 0; i < n; i++) kept[i] = a.slots()[fits[i]];
            scores = engine.prioritize(g.demand(), kept, g.pod().key());
        } else {
            int[] o = new int[n], l = new int[n], h = hashes == null ? null : new int[n];
            for (int i = 0; i < n; i++) {
                int p = fits[i];
                o[i] = off[p];
                l[i] = len[p];
                if (h != null) h[i] = hashes[p];
            }
            scores = engine.prioritize(g.demand(), buf, o, l, h, n, g.pod().key());
        }
        int[] bucket = new int[PlacementEngine.MAX_SCORE + 1];
        for (int sc : scores) bucket[Math.clamp(sc, 0, PlacementEngine.MAX_SCORE)]++;
        int cut = PlacementEngine.MAX_SCORE, above = 0; // every node scored above cut is kept, then the first of cut
        while (cut > 0 && above + bucket[cut] < keep) above += bucket[cut--];
        int ofCut = keep - above;
        int[] kept = new int[keep];
        int m = 0;
        for (int i = 0; i < n && m < keep; i++) {
            int sc = Math.clamp(scores[i], 0, PlacementEngine.MAX_SCORE);
            if (sc > cut || (sc == cut && ofCut-- > 0)) kept[m++] = fits[i];
        }
        if (m == 1) holds.hold(g, name(buf, off, len, kept[0]));
        return new IndexedFilterAnswer(kept, m, a.failed(), a.unresolvable(), a.error(), a.slots());
    }

    private static String name(byte[] buf, int[] off, int[] len, int at) { return new String(buf, off[at], len[at], StandardCharsets.UTF_8); }

    public record PrioritizeAnswer(List<NodeScore> scores, String error) {}

    /**
     * Scores 0..10; a pod without GPU demand scores every node 0, so other priorities decide. A node whose room is held
     * for a nominated pod of equal or higher priority ({@link HeldRoom}; it became so after this pod's filter) scores 0.
     * With holds on, the first node with the top score keeps 10, the others that tied drop to 9 (so kube-scheduler's
     * pick follows ours unless another priority outweighs a point), and the pod's room there is held until its
     * bind ({@link PipelineHolds}).
     */
    public PrioritizeAnswer prioritize(Ask ask, List<String> nodeNames) {
        return switch (ask) {
            case Ask.None n -> {
                List<NodeScore> zero = new ArrayList<>(nodeNames.size());
                for (String name : nodeNames) zero.add(new NodeScore(name, 0));
                yield new PrioritizeAnswer(zero, "");
            }
            case Ask.Bad b -> new PrioritizeAnswer(List.of(), b.reason());
            case Ask.Gpu g -> new PrioritizeAnswer(holding(g, unheld(g, engine.prioritize(g.demand(), nodeNames, g.pod().key()))), "");
        };
    }

    /** The scores with those of nodes whose room is held against the pod set to 0; the best node left is lifted to 10, so the pipelining hold goes there. */
    private List<NodeScore> unheld(Ask.Gpu g, List<NodeScore> scores) {
        if (!held.active()) return scores;
        List<NodeScore> out = null;
        for (int i = 0; i < scores.size(); i++) {
            NodeScore s = scores.get(i);
            if (s.score() == 0 || held.refusal(g, s.node()) == null) continue;
            if (out == null) out = new ArrayList<>(scores);
            out.set(i, new NodeScore(s.node(), 0));
        }
        if (out == null) return scores;
        int top = 0;
        for (NodeScore s : out) top = Math.max(top, s.score());
        if (top == 0 || top == PlacementEngine.MAX_SCORE) return out;
        List<NodeScore> lifted = new ArrayList<>(out.size()); // the best node left keeps the top place a hold needs
        for (NodeScore s : out) lifted.add(s.score() == top ? new NodeScore(s.node(), PlacementEngine.MAX_SCORE) : s);
        return lifted;
    }

    /** A prioritize answer over names given as bytes: the score of each position, or an error. */
    public record IndexedPrioritizeAnswer(int[] scores, String error) {}

    /**
     * {@link #prioritize(Ask, List)} over names given as bytes, as the filter takes them
     * ({@link PlacementEngine#prioritize(GpuDemand, byte[], int[], int[], int[], int, PodKey)}): no String per node.
     */
    public IndexedPrioritizeAnswer prioritize(Ask ask, byte[] buf, int[] off, int[] len, int[] hashes, int count) {
        return switch (ask) {
            case Ask.None n -> new IndexedPrioritizeAnswer(new int[count], "");
            case Ask.Bad b -> new IndexedPrioritizeAnswer(new int[0], b.reason());
            case Ask.Gpu g -> {
                int[] scores = engine.prioritize(g.demand(), buf, off, len, hashes, count, g.pod().key());
                if (held.active()) unheld(g, scores, buf, off, len, count);
                if (holds.enabled()) {
                    int top = -1;
                    for (int i = 0; i < count; i++) {
                        if (scores[i] < PlacementEngine.MAX_SCORE) continue;
                        if (top < 0) top = i; else scores[i] = PlacementEngine.MAX_SCORE - 1;
                    }
                    holds.hold(g, top < 0 ? null : new String(buf, off[top], len[top], StandardCharsets.UTF_8));
                }
                yield new IndexedPrioritizeAnswer(scores, "");
            }
        };
    }

    /** {@link #unheld(Ask.Gpu, List)} over positions: names are built only for nodes that scored, and only while a hold is active. */
    private void unheld(Ask.Gpu g, int[] scores, byte[] buf, int[] off, int[] len, int count) {
        boolean changed = false;
        for (int i = 0; i < count; i++) {
            if (scores[i] == 0 || held.refusal(g, new String(buf, off[i], len[i], StandardCharsets.UTF_8)) == null) continue;
            scores[i] = 0;
            changed = true;
        }
        if (!changed) return;
        int top = 0;
        for (int i = 0; i < count; i++) top = Math.max(top, scores[i]);
        if (top == 0 || top == PlacementEngine.MAX_SCORE) return;
        for (int i = 0; i < count; i++) if (scores[i] == top) scores[i] = PlacementEngine.MAX_SCORE; // the best node left keeps the top place a hold needs
    }

    private List<NodeScore> holding(Ask.Gpu g, List<NodeScore> scores) {
        if (!holds.enabled()) return scores;
        String top = null;
        List<NodeScore> out = new ArrayList<>(scores.size());
        for (NodeScore s : scores) {
            if (s.score() < PlacementEngine.MAX_SCORE) { out.add(s); continue; }
            if (top == null) { top = s.node(); out.add(s); }
            else out.add(new NodeScore(s.node(), PlacementEngine.MAX_SCORE - 1));
        }
        holds.hold(g, top);
        return out;
    }
}
