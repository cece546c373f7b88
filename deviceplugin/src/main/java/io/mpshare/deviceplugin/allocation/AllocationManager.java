package io.mpshare.deviceplugin.allocation;

import io.fabric8.kubernetes.api.model.Pod;
import io.mpshare.core.MemoryUnit;
import io.mpshare.core.ledger.Allocation;
import io.mpshare.core.model.ContainerShare;
import io.mpshare.core.model.NodeInventory;
import io.mpshare.core.model.PodKey;
import io.mpshare.deviceplugin.allocation.Candidate.Claims;
import io.mpshare.deviceplugin.api.v1beta1.ContainerAllocateResponse;
import io.mpshare.deviceplugin.cluster.PodListener;
import io.mpshare.deviceplugin.cluster.PodWrites;
import io.mpshare.deviceplugin.kubelet.ResourceHandler.AllocateRefused;

import java.time.Duration;
import java.time.InstantSource;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * Answers kubelet's {@code gpu-mem} Allocate calls (docs/decisions/allocate-pod-matching.md).
 *
 * <p>Implementation notes.
 * <ul>
 * <li><b>The answer comes from the IDs.</b> kubelet hands each device ID to one container at a time; the GPUs of the
 *     IDs and the units on each ({@link IdShape}) are what the container may use. The answer's
 *     {@code NVIDIA_VISIBLE_DEVICES} and caps are built from them, so no container gets more than kubelet counted for
 *     it, or a neighbour's GPU share. GetPreferredAllocation steers kubelet to IDs of the booked GPU(s).</li>
 * <li><b>Who it is for.</b> The pod gives only its reserve, core share and names. kubelet admits one pod at a time, in
 *     the order its watch delivers the node's pods, init containers first: so the call is for the earliest-arrived
 *     waiting pod ({@link WaitingPods}) with an unanswered container of that many units; a pod already part-answered
 *     goes first. IDs that GetPreferredAllocation chose for a pod are taken as that pod's (a link per ID set). When
 *     that pod was not placed by the extender (unplaced: no allocation, malformed, another node's), the call is
 *     refused at once with its reason, never answered with a neighbour's booking.</li>
 * <li><b>Never waiting when the answer is known.</b> kubelet admits pods on its sync loop. A decision is made from
 *     memory; only when no waiting pod could own the call (the informer may be behind) does {@link #allocate} read
 *     the node's pods and pod-resources directly ({@link Fallback}, bounded), then answer or refuse.</li>
 * <li><b>Concurrency.</b> A container is claimed with a compare-and-set on the pod's immutable {@link Claims}; no
 *     node-wide lock. The pod is marked assigned by the {@link Reconciler} once pod-resources shows it holding the
 *     IDs, which also corrects a wrong guess (claims move to the pod kubelet names) and the booking's GPUs.</li>
 * <li><b>The policer</b> is told what each pod was answered ({@link AnswerSink}) when that differs from its booking,
 *     until the corrected annotation comes back.</li>
 * </ul>
 */
public final class AllocationManager implements PodListener {
    /** How long {@link #allocate} and the preference's slow path may spend on direct reads, by default. */
    public static final Duration FALLBACK_BUDGET = Duration.ofSeconds(1);

    private final String node;
    private final MemoryUnit unit;
    private final NodeInventory hardware;
    private final Supplier<String> colour;
    private final AnswerBuilder answers;
    private final PodWrites writes;
    private final AnswerLog log;
    private final InstantSource clock;
    private final ChangeWaiter waiter;
    private final Duration informerWait;
    private final WaitingPods waiting;
    private final ConcurrentHashMap<String, Claims> claims = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, String> colours = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, Link> links = new ConcurrentHashMap<>();
    private final Answered answered;
    private volatile Runnable afterAllocate = () -> {};
    private volatile Fallback fallback = budget -> {};
    private volatile Duration fallbackBudget = FALLBACK_BUDGET;

    /** How the slow paths wait for the informer: {@code NodePodCache} in production. */
    public interface ChangeWaiter {
        long version();

        boolean awaitChange(long seen, Duration timeout) throws InterruptedException;

        ChangeWaiter NONE = new ChangeWaiter() {
            @Override public long version() { return 0; }

            @Override public boolean awaitChange(long seen, Duration timeout) { return false; }
        };
    }

    /** A direct read of the node's pods (and a reconcile from pod-resources), bounded by {@code budget}. */
    public interface Fallback { void refresh(Duration budget); }

    /** Where the policer learns what a pod was answered, while it differs from the pod's annotation. */
    public interface AnswerSink {
        void answered(Allocation asAnswered);

        void cleared(String podUid);

        AnswerSink NONE = new AnswerSink() {
            @Override public void answered(Allocation a) { }

            @Override public void cleared(String uid) { }
        };
    }

    /** What Allocate decided without waiting. */
    public sealed interface Decision {
        record Answered(ContainerAllocateResponse response) implements Decision {}
        record Refused(String reason) implements Decision {}
        /** No waiting pod can own the call: the informer may be behind. */
        record Unknown() implements Decision {}
    }

    /** Whom GetPreferredAllocation steers for: a placed pod's container, an unplaced pod (no preference), or nobody known. */
    public sealed interface Target {
        record Placed(Candidate candidate, int index) implements Target {}
        record Unplaced(Candidate candidate) implements Target {}
        record Unknown() implements Target {}
    }

    private record Link(String uid, int index) {}

    public AllocationManager(String node, MemoryUnit unit, NodeInventory hardware, Supplier<String> colour, AnswerBuilder answers,
                             PodWrites writes, AnswerLog log, InstantSource clock, ChangeWaiter waiter, Duration informerWait) {
        this.node = node;
        this.unit = unit;
        this.hardware = hardware;
        this.colour = colour;
        this.answers = answers;
        this.writes = writes;
        this.log = log;
        this.clock = clock;
        this.waiter = waiter;
        this.informerWait = informerWait;
        this.answered = new Answered(hardware);
        this.waiting = new WaitingPods(node, unit, hardware, this::forgotten);
    }

    /** Run after each answered container (the reconciler's trigger). */
    public void afterAllocate(Runnable r) { afterAllocate = r; }

    public void fallback(Fallback f) { fallback = f; }

    /** Bounds each direct read ({@link #FALLBACK_BUDGET} by default; tests on a loaded machine give more). */
    public void fallbackBudget(Duration d) { fallbackBudget = d; }

    public void answerSink(AnswerSink s) { answered.sink(s); }

    public AnswerLog answerLog() { return log; }

    public MemoryUnit unit() { return unit; }

    public String node() { return node; }

    public NodeInventory hardware() { return hardware; }

    // ---- Allocate ---------------------------------------------------------------------------------------------------

    /** Decides from memory, never blocks: an answer, a refusal known now, or unknown. */
    public Decision decide(List<String> deviceIds) {
        IdShape shape;
        switch (IdShape.of(deviceIds, hardware)) {
            case IdShape.Read.Bad b -> { return new Decision.Refused(Explain.badIds(b.reason())); }
            case IdShape.Read.Shape s -> shape = s.shape();
        }
        long want = shape.total();
        Link link = links.remove(AnswerLog.key(deviceIds));
        if (link != null) {
            var c = waiting.candidate(link.uid()).orElse(null);
            if (c != null && c.isPlaced() && claim(c, link.index())) return answer(c, link.index(), deviceIds, shape);
        }
        for (Candidate c : ordered()) {
            while (true) {
                int i = c.firstOpen(want, claimsOf(c.uid()));
                if (i < 0) break;
                if (!c.isPlaced()) {
                    waiting.refused(c.uid());
                    return new Decision.Refused(Explain.unplaced(c));
                }
                if (claim(c, i)) return answer(c, i, deviceIds, shape);
            }
        }
        return new Decision.Unknown();
    }

    /** The fast path (transport thread): an answer, empty when a direct read is needed, or a refusal known now. */
    public Optional<ContainerAllocateResponse> tryAllocate(List<String> deviceIds) throws AllocateRefused {
        return switch (decide(deviceIds)) {
            case Decision.Answered a -> Optional.of(a.response());
            case Decision.Refused r -> throw new AllocateRefused(r.reason());
            case Decision.Unknown u -> Optional.empty();
        };
    }

    /** Decides; when no waiting pod can own the call, reads the node's pods directly (bounded) and decides again. */
    public ContainerAllocateResponse allocate(List<String> deviceIds) throws AllocateRefused {
        Optional<ContainerAllocateResponse> r = tryAllocate(deviceIds);
        if (r.isPresent()) return r.get();
        fallback.refresh(fallbackBudget);
        r = tryAllocate(deviceIds);
        if (r.isPresent()) return r.get();
        long units = IdShape.of(deviceIds, hardware) instanceof IdShape.Read.Shape s ? s.shape().total() : deviceIds.size();
        throw new AllocateRefused(Explain.none(node, unit, units, ordered(), claims));
    }

    private boolean claim(Candidate c, int i) {
        while (true) {
            Claims old = claimsOf(c.uid());
            if (old.has(i)) return false;
            Claims next = old.with(i, c.units().length);
            boolean won = old == Claims.NONE ? claims.putIfAbsent(c.uid(), next) == null : claims.replace(c.uid(), old, next);
            if (won) return true;
        }
    }

    private Decision answer(Candidate c, int i, List<String> deviceIds, IdShape shape) {
        ContainerShare share = c.shares().get(i);
        String given = colour.get();
        ContainerAllocateResponse resp = answers.build(c.allocation(), share, shape, given);
        colours.merge(c.uid(), given, AllocationManager::union);
        log.record(deviceIds, new Answer(c.pod(), c.uid(), share.name(), c.allocation(), clock.instant()));
        answered.put(c, share.name(), shape.gpuIndices());
        afterAllocate.run();
        return new Decision.Answered(resp);
    }

    /** "blue" ∪ "green" = "blue,green": a pod whose containers straddled a colour switch names both. */
    static String union(String had, String more) {
        return java.util.Arrays.asList(had.split(",")).contains(more) ? had : had + "," + more;
    }

    private Claims claimsOf(String uid) { return claims.getOrDefault(uid, Claims.NONE); }

    private List<Candidate> ordered() { return waiting.ordered(c -> claimsOf(c.uid()).started()); }

    // ---- GetPreferredAllocation ----------------------------------------------------------------------------------

    /** The container the next Allocate of {@code units} is for, without claiming it; never blocks. */
    public Target target(long units) {
        for (Candidate c : ordered()) {
            int i = c.firstOpen(units, claimsOf(c.uid()));
            if (i < 0) continue;
            return c.isPlaced() ? new Target.Placed(c, i) : new Target.Unplaced(c);
        }
        return new Target.Unknown();
    }

    /** {@link #target}, waiting up to {@code informerWait} for the informer, then reading directly; Unknown after that. */
    public Target awaitTarget(long units) {
        long deadline = System.nanoTime() + informerWait.toNanos();
        while (true) {
            long seen = waiter.version();
            Target t = target(units);
            if (!(t instanceof Target.Unknown)) return t;
            long left = deadline - System.nanoTime();
            try {
                if (left <= 0 || !waiter.awaitChange(seen, Duration.ofNanos(left))) break;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return t;
            }
        }
        fallback.refresh(fallbackBudget);
        return target(units);
    }

    /** GetPreferredAllocation chose {@code ids} for this container: an Allocate with exactly these IDs is its. */
    public void preferred(List<String> ids, Target.Placed t) {
        if (links.size() > 1024) links.clear();   // kubelet follows each preference with its Allocate; stale ones are few
        links.put(AnswerLog.key(ids), new Link(t.candidate().uid(), t.index()));
    }

    // ---- informer side ------------------------------------------------------------------------------------------

    @Override public void upserted(Pod pod) { waiting.upserted(pod); }

    @Override public void deleted(Pod pod) { waiting.deleted(pod); }

    private void forgotten(String uid) {
        claims.remove(uid);
        colours.remove(uid);
        answered.forget(uid);
    }

    // ---- for the reconciler ---------------------------------------------------------------------------------------

    /** The pod's allocation as last seen (any phase), or empty. */
    public Optional<Allocation> allocationOf(PodKey pod) { return waiting.known(pod); }

    /** Whether this process answered every GPU container of the pod. */
    public boolean fullyAnswered(String uid) { return claimsOf(uid).complete(); }

    /** The colour(s) the pod's containers were given, or the active colour when this process answered none. */
    public String coloursOf(String uid) { return colours.getOrDefault(uid, colour.get()); }

    /**
     * pod-resources says {@code realPod}'s container {@code realContainer} holds the IDs answered as {@code wrong}:
     * the claim moves there (so the pod first guessed is matched again), and the policer is told.
     */
    public void reassign(Answer wrong, Allocation real, String realContainer, List<Integer> gpus) {
        answered.remove(wrong.uid(), wrong.container(), wrong.allocation());
        Candidate w = Candidate.placed(wrong.allocation(), unit, 0);
        int wi = w.indexOf(wrong.container());
        if (wi >= 0) claims.computeIfPresent(wrong.uid(), (k, cl) -> cl.without(wi));
        Candidate r = Candidate.placed(real, unit, 0);
        int ri = r.indexOf(realContainer);
        if (ri >= 0) claim(r, ri);
        answered.put(r, realContainer, gpus);
    }

    /**
     * kubelet holds devices for these containers of the pod (pod-resources) but this process did not answer them (it
     * did before a restart, or the claim was lost): they are admitted and must never be matched again.
     */
    public void admitted(Allocation a, List<String> containers) {
        Candidate c = Candidate.placed(a, unit, 0);
        for (String name : containers) {
            int i = c.indexOf(name);
            if (i >= 0) claim(c, i);
        }
    }

    /** Records a correction the reconciler wrote, so the next pass sees it before the watch echoes it. */
    public void corrected(Allocation a) {
        waiting.know(a);
        if (a.phase() == io.mpshare.core.ledger.Phase.ASSIGNED) waiting.drop(a.podUid());
    }

    /** Whether this process answered the container (by name) of the pod. */
    public boolean answeredContainer(Allocation a, String container) {
        int i = Candidate.placed(a, unit, 0).indexOf(container);
        return i >= 0 && claimsOf(a.podUid()).has(i);
    }

    public Map<String, List<Integer>> answeredGpus(String uid) { return answered.of(uid); }

    public int candidateCount() { return waiting.size(); }
}
