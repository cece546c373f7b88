package io.mpshare.scheduler;

import io.mpshare.core.MemoryUnit;
import io.mpshare.core.model.DemandResolver;
import io.mpshare.core.model.GpuDemand;
import io.mpshare.core.model.PodInfo;
import io.mpshare.core.policy.PlacementEngine;
import io.mpshare.core.policy.PlacementEngine.FilterOutcome;
import io.mpshare.core.policy.PlacementEngine.NodeScore;
import io.mpshare.kube.PodFacts;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Filter and prioritize in domain terms: a pod's facts and candidate node names in, an answer out.
 * Pods that ask for no shared GPU pass through untouched; a pod whose request can never be met
 * anywhere (bad quantity, uneven split) is answered with an error that says what to change.
 */
public final class Verbs {
    private final PlacementEngine engine;
    private final DemandResolver resolver;
    private final MemoryUnit unit;
    private final PipelineHolds holds;

    /** Verbs without pipelining holds (the simulator, benchmarks of the filter alone). */
    public Verbs(PlacementEngine engine, DemandResolver resolver, MemoryUnit unit) {
        this(engine, resolver, unit, new PipelineHolds(engine, engine.ledger().clock(), java.time.Duration.ZERO));
    }

    /** @param holds where prioritize holds the room of the node it ranks first until the pod's bind */
    public Verbs(PlacementEngine engine, DemandResolver resolver, MemoryUnit unit, PipelineHolds holds) {
        this.engine = engine;
        this.resolver = resolver;
        this.unit = unit;
        this.holds = holds;
    }

    public PipelineHolds holds() { return holds; }

    public PlacementEngine engine() { return engine; }
    public DemandResolver resolver() { return resolver; }
    public MemoryUnit unit() { return unit; }

    /** What a pod needs: a demand, nothing (pass through), or an error a person can act on. */
    public sealed interface Need {
        record Gpu(PodInfo pod, GpuDemand demand) implements Need {}
        record None(PodInfo pod) implements Need {}
        record Bad(String reason) implements Need {}
    }

    public Need need(PodFacts facts) {
        if (facts == null) return new Need.Bad("the request carries no Pod");
        PodInfo pod;
        try {
            pod = facts.toPodInfo(unit);
        } catch (IllegalArgumentException | ArithmeticException e) {
            return new Need.Bad(e.getMessage());
        }
        try {
            return switch (resolver.resolve(pod)) {
                case DemandResolver.Resolution.Resolved r -> new Need.Gpu(pod, r.demand());
                case DemandResolver.Resolution.NoGpu n -> new Need.None(pod);
                case DemandResolver.Resolution.Invalid i -> new Need.Bad("pod " + pod.key() + ": " + i.reason());
            };
        } catch (ArithmeticException e) {
            return new Need.Bad("pod " + pod.key() + " asks more GPU memory than can be counted: check its aliyun.com/gpu-mem limits");
        }
    }

    /** A filter answer: nodes kept, nodes refused (with reasons), or an error for the whole request. */
    public record FilterAnswer(List<String> fits, Map<String, String> failed, Map<String, String> unresolvable, String error) {
        static FilterAnswer error(String why) { return new FilterAnswer(List.of(), Map.of(), Map.of(), why); }
    }

    public FilterAnswer filter(PodFacts facts, List<String> nodeNames) {
        return switch (need(facts)) {
            case Need.None n -> new FilterAnswer(nodeNames, Map.of(), Map.of(), "");
            case Need.Bad b -> FilterAnswer.error(b.reason());
            case Need.Gpu g -> {
                FilterOutcome o = engine.filter(g.demand(), nodeNames, g.pod().key());
                yield new FilterAnswer(o.fits(), o.failed(), o.unresolvable(), "");
            }
        };
    }

    /**
     * A filter answer over names given as bytes ({@link PlacementEngine#filter(GpuDemand, byte[], int[], int[], int)}):
     * the positions of the nodes kept, {@code fits[0..fitCount)}, reasons for the others, or an error.
     */
    public record IndexedFilterAnswer(int[] fits, int fitCount, Map<String, String> failed, Map<String, String> unresolvable, String error) {}

    public IndexedFilterAnswer filter(PodFacts facts, byte[] buf, int[] off, int[] len, int[] hashes, int count) {
        return switch (need(facts)) {
            case Need.None n -> {
                int[] all = new int[count];
                for (int i = 0; i < count; i++) all[i] = i;
                yield new IndexedFilterAnswer(all, count, Map.of(), Map.of(), "");
            }
            case Need.Bad b -> new IndexedFilterAnswer(new int[0], 0, Map.of(), Map.of(), b.reason());
            case Need.Gpu g -> {
                PlacementEngine.IndexedOutcome o = engine.filter(g.demand(), buf, off, len, hashes, count, g.pod().key());
                yield new IndexedFilterAnswer(o.fits(), o.fitCount(), o.failed(), o.unresolvable(), "");
            }
        };
    }

    public record PrioritizeAnswer(List<NodeScore> scores, String error) {}

    /**
     * Scores 0..10; a pod without GPU demand scores every node 0, so other priorities decide. With holds on,
     * the first node with the top score keeps 10, the others that tied drop to 9 (so kube-scheduler's pick
     * follows ours unless another priority outweighs a point), and the pod's room there is held until its
     * bind ({@link PipelineHolds}).
     */
    public PrioritizeAnswer prioritize(PodFacts facts, List<String> nodeNames) {
        return switch (need(facts)) {
            case Need.None n -> {
                List<NodeScore> zero = new ArrayList<>(nodeNames.size());
                for (String name : nodeNames) zero.add(new NodeScore(name, 0));
                yield new PrioritizeAnswer(zero, "");
            }
            case Need.Bad b -> new PrioritizeAnswer(List.of(), b.reason());
            case Need.Gpu g -> new PrioritizeAnswer(holding(g, engine.prioritize(g.demand(), nodeNames, g.pod().key())), "");
        };
    }

    private List<NodeScore> holding(Need.Gpu g, List<NodeScore> scores) {
        if (!holds.enabled()) return scores;
        String top = null;
        List<NodeScore> out = new ArrayList<>(scores.size());
        for (NodeScore s : scores) {
            if (s.score() < PlacementEngine.MAX_SCORE) { out.add(s); continue; }
            if (top == null) { top = s.node(); out.add(s); }
            else out.add(new NodeScore(s.node(), PlacementEngine.MAX_SCORE - 1));
        }
        holds.hold(g.pod(), g.demand(), top);
        return out;
    }
}
