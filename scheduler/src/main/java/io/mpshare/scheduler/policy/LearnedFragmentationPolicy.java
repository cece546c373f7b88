package io.mpshare.scheduler.policy;

import io.mpshare.core.ledger.Ledger;
import io.mpshare.core.ledger.NodeState;
import io.mpshare.core.model.GpuDemand;
import io.mpshare.core.model.PodKey;
import io.mpshare.core.policy.Evaluation;
import io.mpshare.core.policy.FragmentationPolicy;
import io.mpshare.core.policy.PlacementPolicy;
import io.mpshare.core.policy.TaskMix;
import io.mpshare.kube.HostAsk;

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
 * After every {@code rebuildEvery} newly seen pods (not per request) the window's mix is compared with the one
 * in use, and replaces it when the two are more than {@code tolerance} apart ({@link TaskMix#distance}, default
 * {@link #DEFAULT_TOLERANCE}: while the window's mix moved less than that the mix in use stays, and with it every score
 * the engine remembers under it, docs/decisions/mix-tolerance.md). So prioritize and bind of one pod almost
 * always use the same mix (a new mix in between can change a GPU choice only between equally good ones by the
 * newer mix; never a fit). Until the cluster has shown {@code rebuildEvery} GPU pods it uses {@link #PRIOR}, a
 * spread of typical shared-GPU asks, which the first learned mix always replaces (at start-up the cluster view's
 * first list usually fills the window at once).
 *
 * <p>Host CPU and memory: each mix entry carries the CPU and memory its pod requested (from {@link HostRoom},
 * which the pod informer feeds), and prioritize and bind ({@link #forPod}) evaluate each node with its free
 * CPU and memory ({@link HostRoom}: allocatable minus the requests of the pods there and of the extender's own
 * bookings) and the pod's own request, as the openb replay does. A node without allocatable counts as unknown
 * (never short).
 *
 * <p>Filter: {@link #fitsByRoom} is true (without the UID rule), so the filter answers from the ledger's
 * index whatever the mix (kube-scheduler's own filters check CPU and memory); only prioritize and bind
 * evaluate the fragmentation.
 */
public final class LearnedFragmentationPolicy implements PlacementPolicy {
    /** Window of distinct pods the mix is learned from. */
    public static final int DEFAULT_WINDOW = 2_000;
    /** Pods newly seen between two looks at the window's mix (a new mix only when it moved more than the tolerance). */
    public static final int DEFAULT_REBUILD_EVERY = 50;
    /**
     * How far ({@link TaskMix#distance}) the window's mix may move from the one in use before it replaces it: the
     * simulator places its built-in workload as well (within ±4 %) with mixes moved up to 0.2 from its own
     * (docs/decisions/mix-tolerance.md).
     */
    public static final double DEFAULT_TOLERANCE = 0.1;

    /**
     * The mix before any GPU pod is seen: one-GPU pods of 2, 4, 8, 16 and 40 GiB (weights 3, 3, 2, 2, 1), a
     * fifth of them with a 30 % core share, and a two-GPU 40 GiB pod (weight 1); each with the default
     * 512 MiB context reserve. Typical inference and fine-tuning shares on 24–141 GiB GPUs.
     */
    public static final TaskMix PRIOR = prior();

    private final boolean uidRule;
    private final int window, rebuildEvery;
    private final double tolerance;
    /** Whether the mix in use was learned (false while it is the start mix). */
    private boolean learned;
    private final HostRoom host;
    /** A pod seen with a GPU booking: its demand and host ask (null until the host room knew it). */
    private record Seen(GpuDemand demand, HostAsk ask) {}
    private final LinkedHashMap<PodKey, Seen> recent;
    private int sinceRebuild;
    /** The policy of the current mix and the evaluations it made (prioritize and bind read them: {@link EvaluationMemo}). */
    private volatile EvaluationMemo current;

    public LearnedFragmentationPolicy(boolean uidRule, int window, int rebuildEvery) { this(uidRule, new HostRoom(), PRIOR, window, rebuildEvery); }

    /** With the default tolerance. */
    public LearnedFragmentationPolicy(boolean uidRule, HostRoom host, TaskMix start, int window, int rebuildEvery) {
        this(uidRule, host, start, window, rebuildEvery, DEFAULT_TOLERANCE);
    }

    /**
     * @param host      free host CPU and memory per node, and each pod's request (fed by the informers)
     * @param start     the mix until {@code rebuildEvery} GPU pods were seen
     * @param tolerance how far the window's mix may move from the one in use before it replaces it (0: whenever it moved)
     */
    public LearnedFragmentationPolicy(boolean uidRule, HostRoom host, TaskMix start, int window, int rebuildEvery, double tolerance) {
        this.host = Objects.requireNonNull(host, "host");
        if (window < 1) throw new IllegalArgumentException("window must be >= 1, got " + window);
        if (rebuildEvery < 1) throw new IllegalArgumentException("rebuildEvery must be >= 1, got " + rebuildEvery);
        if (!(tolerance >= 0 && tolerance < 1)) throw new IllegalArgumentException("tolerance must be within [0, 1), got " + tolerance);
        this.uidRule = uidRule;
        this.window = window;
        this.rebuildEvery = rebuildEvery;
        this.tolerance = tolerance;
        this.recent = new LinkedHashMap<>(16, 0.75f, true) {
            @Override protected boolean removeEldestEntry(Map.Entry<PodKey, Seen> eldest) { return size() > LearnedFragmentationPolicy.this.window; }
        };
        this.current = new EvaluationMemo(new FragmentationPolicy(Objects.requireNonNull(start, "start"), FragmentationPolicy.DEFAULT_TOLERANCE, uidRule));
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
            Seen before = recent.get(pod);
            HostAsk ask = host.known(pod) ? host.ask(pod) : before != null ? before.ask() : null;
            recent.put(pod, new Seen(demand, ask));
            if (before != null && before.demand().equals(demand)) return;
            if (++sinceRebuild < rebuildEvery) return;
            sinceRebuild = 0;
            TaskMix next = mixOf();
            if (learned && next.distance(current.policy().mix()) <= tolerance) return; // the scores remembered under the mix in use stay
            learned = true;
            current = new EvaluationMemo(new FragmentationPolicy(next, FragmentationPolicy.DEFAULT_TOLERANCE, uidRule));
        }
    }

    /** The mix of the window: (GPU count, MiB and cores per GPU, CPU, memory), weighted by how many pods asked it. */
    private TaskMix mixOf() {
        Map<List<Long>, Integer> counts = new LinkedHashMap<>();
        for (var e : recent.entrySet()) {
            Seen s = e.getValue();
            HostAsk a = s.ask() != null ? s.ask() : host.ask(e.getKey()); // the pod informer may have been later than the ledger's
            GpuDemand d = s.demand();
            counts.merge(List.of((long) d.gpuCount(), d.chargeMib(), (long) d.chargeCore(), a.cpuMilli(), a.memoryMib()), 1, Integer::sum);
        }
        List<TaskMix.Entry> entries = new ArrayList<>(counts.size());
        counts.forEach((k, n) -> entries.add(new TaskMix.Entry(k.get(0).intValue(), k.get(1), 0, k.get(2).intValue(), k.get(3), k.get(4), n)));
        return new TaskMix(entries);
    }

    /**
     * Lets {@code ledger}'s engine remember this policy's scores per pod shape ({@link PlacementPolicy#scoreKey}): every
     * change of a node's host room touches the node in the ledger's index, so a remembered score is not given after it.
     */
    public void touchOnHostChange(Ledger ledger) { host.onChange(ledger.fitIndex()::touch); }

    /** Where the policy reads the nodes' free CPU and memory and the pods' requests. */
    public HostRoom host() { return host; }

    /**
     * The policy for one pod: each node evaluated with its free CPU and memory before the pod and the pod's own
     * request ({@link HostRoom}); prioritize scores and bind books with it ({@code PlacementEngine}).
     */
    @Override public PlacementPolicy forPod(PodKey pod) {
        EvaluationMemo memo = current;
        FragmentationPolicy p = memo.policy();
        HostAsk ask = host.ask(pod);
        return new PlacementPolicy() {
            @Override public String name() { return p.name(); }
            @Override public Evaluation evaluate(NodeState node, GpuDemand demand) { return host.evaluate(memo, node, demand, pod, ask); }
            @Override public boolean fits(NodeState node, GpuDemand demand) { return p.fits(node, demand); }
            @Override public long score(NodeState node, GpuDemand demand) { // prioritize sees the nodes filter kept: no fits pre-check
                return evaluate(node, demand) instanceof Evaluation.Fits f ? f.score() : NO_FIT;
            }
            @Override public boolean fitsByRoom(GpuDemand demand) { return LearnedFragmentationPolicy.this.fitsByRoom(demand); }
            // the node's host room is an input outside its snapshot: remembered only while every change of it touches the
            // node; a pod the informer shows bound has its own request given back on its node: scored afresh
            @Override public Object scoreKey(GpuDemand demand) {
                return host.told() && !host.bound(pod) ? List.of(memo, demand, ask.cpuMilli(), ask.memoryMib()) : null;
            }
        };
    }

    /** The policy in use now (its mix is {@link #PRIOR} until {@code rebuildEvery} GPU pods were seen). */
    public FragmentationPolicy current() { return current.policy(); }

    @Override public String name() { return current().name(); }

    @Override public Evaluation evaluate(NodeState node, GpuDemand demand) { return current().evaluate(node, demand); }

    @Override public long score(NodeState node, GpuDemand demand) { return current().score(node, demand); }

    @Override public Object scoreKey(GpuDemand demand) { return current().scoreKey(demand); }

    @Override public boolean fits(NodeState node, GpuDemand demand) { return current().fits(node, demand); }

    /** FragmentationPolicy fits a node exactly when enough GPUs have room (and, with the UID rule, no conflict). */
    @Override public boolean fitsByRoom(GpuDemand demand) { return !uidRule || !demand.underUidRule(); }

    /** With the UID rule, FragmentationPolicy checks the room first, then the UID conflict. */
    @Override public boolean fitsByRoomUnderUidRule(GpuDemand demand) { return uidRule; }
}
