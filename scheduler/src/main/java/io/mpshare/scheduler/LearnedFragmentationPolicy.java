package io.mpshare.scheduler;

import io.mpshare.core.ledger.NodeState;
import io.mpshare.core.model.GpuDemand;
import io.mpshare.core.model.PodKey;
import io.mpshare.core.policy.Evaluation;
import io.mpshare.core.policy.FragmentationPolicy;
import io.mpshare.core.policy.PlacementPolicy;
import io.mpshare.core.policy.TaskMix;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The extender's default placement: {@link FragmentationPolicy} (fragmentation gradient descent,
 * docs/decisions/default-placement-policy.md) over a task mix learned from the pods the cluster view sees.
 *
 * <p>The mix: the GPU demands of the last {@code window} distinct pods that hold a GPU booking (one entry per
 * pod key; a pod seen again moves to the front; the oldest drop out), through {@link TaskMix#ofDemands}.
 * It is rebuilt after every {@code rebuildEvery} newly seen pods, not per request, so prioritize and bind
 * of one pod almost always use the same mix (a rebuild in between can change a GPU choice only between
 * equally good ones by the newer mix; never a fit). Until the cluster has shown {@code rebuildEvery} GPU pods
 * it uses {@link #PRIOR}, a spread of typical shared-GPU asks (at start-up the cluster view's first list
 * usually fills the window at once).
 *
 * <p>Filter: {@link #fitsByRoom} is true (without the UID rule), so the filter answers from the ledger's
 * index whatever the mix; only prioritize and bind evaluate the fragmentation. Host CPU is not known to the
 * extender yet, so the policy runs its GPU-only form ({@code evaluate(node, demand)}).
 */
public final class LearnedFragmentationPolicy implements PlacementPolicy {
    /** Window of distinct pods the mix is learned from. */
    public static final int DEFAULT_WINDOW = 2_000;
    /** Pods newly seen between two rebuilds of the mix. */
    public static final int DEFAULT_REBUILD_EVERY = 50;

    /**
     * The mix before any GPU pod is seen: one-GPU pods of 2, 4, 8, 16 and 40 GiB (weights 3, 3, 2, 2, 1), a
     * fifth of them with a 30 % core share, and a two-GPU 40 GiB pod (weight 1); each with the default
     * 512 MiB context reserve. Typical inference and fine-tuning shares on 24–141 GiB GPUs.
     */
    public static final TaskMix PRIOR = prior();

    private final boolean uidRule;
    private final int window, rebuildEvery;
    private final LinkedHashMap<PodKey, GpuDemand> recent;
    private int sinceRebuild;
    private volatile FragmentationPolicy current;

    public LearnedFragmentationPolicy(boolean uidRule, int window, int rebuildEvery) {
        if (window < 1) throw new IllegalArgumentException("window must be >= 1, got " + window);
        if (rebuildEvery < 1) throw new IllegalArgumentException("rebuildEvery must be >= 1, got " + rebuildEvery);
        this.uidRule = uidRule;
        this.window = window;
        this.rebuildEvery = rebuildEvery;
        this.recent = new LinkedHashMap<>(16, 0.75f, true) {
            @Override protected boolean removeEldestEntry(Map.Entry<PodKey, GpuDemand> eldest) { return size() > LearnedFragmentationPolicy.this.window; }
        };
        this.current = new FragmentationPolicy(PRIOR, FragmentationPolicy.DEFAULT_TOLERANCE, uidRule);
    }

    public LearnedFragmentationPolicy(boolean uidRule) { this(uidRule, DEFAULT_WINDOW, DEFAULT_REBUILD_EVERY); }

    private static TaskMix prior() {
        List<GpuDemand> d = new ArrayList<>();
        long[] gib = {2, 4, 8, 16, 40};
        int[] weight = {3, 3, 2, 2, 1};
        for (int i = 0; i < gib.length; i++)
            for (int w = 0; w < weight[i] * 5; w++) d.add(GpuDemand.simple(gib[i] * 1024, w % 5 == 0 ? 30 : 0, 1, 512));
        for (int w = 0; w < 5; w++) d.add(GpuDemand.simple(2 * 40 * 1024, 0, 2, 512));
        return TaskMix.ofDemands(d);
    }

    /** A pod with a GPU booking was seen (added, updated or re-listed); counted once per pod key. */
    public void observe(PodKey pod, GpuDemand demand) {
        Objects.requireNonNull(pod, "pod");
        Objects.requireNonNull(demand, "demand");
        synchronized (recent) {
            GpuDemand before = recent.put(pod, demand);
            if (before != null && before.equals(demand)) return;
            if (++sinceRebuild < rebuildEvery) return;
            sinceRebuild = 0;
            current = new FragmentationPolicy(TaskMix.ofDemands(List.copyOf(recent.values())), FragmentationPolicy.DEFAULT_TOLERANCE, uidRule);
        }
    }

    /** The policy in use now (its mix is {@link #PRIOR} until {@code rebuildEvery} GPU pods were seen). */
    public FragmentationPolicy current() { return current; }

    @Override public String name() { return "fragmentation"; }

    @Override public Evaluation evaluate(NodeState node, GpuDemand demand) { return current.evaluate(node, demand); }

    @Override public long score(NodeState node, GpuDemand demand) { return current.score(node, demand); }

    @Override public boolean fits(NodeState node, GpuDemand demand) { return current.fits(node, demand); }

    /** FragmentationPolicy fits a node exactly when enough GPUs have room (and, with the UID rule, no conflict). */
    @Override public boolean fitsByRoom(GpuDemand demand) { return !uidRule || demand.runAsUser().isEmpty(); }
}
