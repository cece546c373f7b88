package io.mpshare.deviceplugin.allocation;

import io.mpshare.core.model.ContainerShare;

import java.time.Duration;
import java.time.InstantSource;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;

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
 *     the node's pods and pod-resources directly ({@link AllocateHooks.Fallback}, bounded), then answer or refuse.</li>
 * <li><b>Decision apart from wire.</b> A call ends in a {@link Decision}: a {@link Grant} (env, mounts, device nodes)
 *     or a refusal with its reason; the kubelet adapter turns either into the device plugin API's answer or status.</li>
 * <li><b>Concurrency.</b> A container is claimed with a compare-and-set on the pod's immutable {@code Claims}
 *     ({@link AllocationBook}); no node-wide lock. The pod is marked assigned by the {@link Reconciler} once
 *     pod-resources shows it holding the IDs, which also corrects a wrong guess (claims move to the pod kubelet names)
 *     and the booking's GPUs.</li>
 * <li><b>The pod's MPS daemon.</b> The pipe directory answered is the one of the daemon that serves the pod
 *     ({@link Daemons}: its fault domain's on the GPU of the IDs, or the colour's node daemon). When that daemon does not
 *     serve yet (a domain starting, faulted or stalled) nothing is claimed and the call moves off the event loop: it
 *     waits up to {@code daemonWait} for the daemon, then is answered, or refused with the daemon's state. A container
 *     is never answered with the pipe directory of a daemon that does not serve.</li>
 * <li><b>The policer</b> is told what each pod was answered ({@link AnswerSink}, through the book) when that differs
 *     from its booking, until the corrected annotation comes back.</li>
 * </ul>
 */
public final class AllocationManager {
    private final AllocationBook book;
    private final AnswerBuilder answers;
    private final InstantSource clock;
    private final ChangeWaiter waiter;
    private final Duration informerWait;
    private final AllocateHooks hooks;
    private final Daemons daemons;
    private final Duration daemonWait;
    private final ConcurrentHashMap<String, Link> links = new ConcurrentHashMap<>();

    /** How the slow paths wait for the informer: {@code NodePodCache} in production. */
    public interface ChangeWaiter {
        long version();

        boolean awaitChange(long seen, Duration timeout) throws InterruptedException;

        ChangeWaiter NONE = new ChangeWaiter() {
            @Override public long version() { return 0; }

            @Override public boolean awaitChange(long seen, Duration timeout) { return false; }
        };
    }

    /** Whom GetPreferredAllocation steers for: a placed pod's container, an unplaced pod (no preference), or nobody known. */
    public sealed interface Target {
        record Placed(Candidate candidate, int index) implements Target {}
        record Unplaced(Candidate candidate) implements Target {}
        record Unknown() implements Target {}
    }

    private record Link(String uid, int index) {}

    /** Every pod on the colour's node daemon (no fault domains). */
    public AllocationManager(AllocationBook book, AnswerBuilder answers, InstantSource clock, ChangeWaiter waiter, Duration informerWait,
                             AllocateHooks hooks) {
        this(book, answers, clock, waiter, informerWait, hooks, Daemons.nodeDaemon(answers::pipeDir), Duration.ZERO);
    }

    /**
     * @param informerWait how long GetPreferredAllocation waits for the informer before a direct read
     * @param daemons      which MPS daemon serves each pod, and whether it serves now
     * @param daemonWait   how long an Allocate waits for a pod's daemon to serve before it is refused
     */
    public AllocationManager(AllocationBook book, AnswerBuilder answers, InstantSource clock, ChangeWaiter waiter, Duration informerWait,
                             AllocateHooks hooks, Daemons daemons, Duration daemonWait) {
        this.book = book;
        this.answers = answers;
        this.clock = clock;
        this.waiter = waiter;
        this.informerWait = informerWait;
        this.hooks = hooks;
        this.daemons = daemons;
        this.daemonWait = daemonWait;
    }

    public AllocationBook book() { return book; }

    // ---- Allocate ---------------------------------------------------------------------------------------------------

    /** Decides from memory, never blocks: an answer, a refusal known now, unknown, or waiting for the pod's daemon. */
    public Decision decide(List<String> deviceIds) {
        IdShape shape;
        switch (IdShape.of(deviceIds, book.hardware())) {
            case IdShape.Read.Bad b -> { return new Decision.Refused(Explain.badIds(b.reason())); }
            case IdShape.Read.Shape s -> shape = s.shape();
        }
        long want = shape.total();
        String colour = book.activeColour();
        Link link = links.get(AnswerLog.key(deviceIds));
        if (link != null) {
            var c = book.candidate(link.uid()).orElse(null);
            if (c != null && c.isPlaced()) {
                Daemons.Served d = daemons.daemonFor(c.uid(), colour, shape.gpuUuids());
                if (d instanceof Daemons.Served.NotReady n) return new Decision.Waiting(c.pod().toString(), n.reason());
                links.remove(AnswerLog.key(deviceIds));
                if (book.claim(c, link.index())) return answer(c, link.index(), deviceIds, shape, colour, (Daemons.Served.Ready) d);
            } else {
                links.remove(AnswerLog.key(deviceIds));
            }
        }
        for (Candidate c : book.ordered()) {
            while (true) {
                int i = c.firstOpen(want, book.claimsOf(c.uid()));
                if (i < 0) break;
                if (!c.isPlaced()) {
                    book.refused(c.uid());
                    return new Decision.Refused(Explain.unplaced(c));
                }
                Daemons.Served d = daemons.daemonFor(c.uid(), colour, shape.gpuUuids());
                if (d instanceof Daemons.Served.NotReady n) return new Decision.Waiting(c.pod().toString(), n.reason());
                if (book.claim(c, i)) return answer(c, i, deviceIds, shape, colour, (Daemons.Served.Ready) d);
            }
        }
        return new Decision.Unknown();
    }

    /**
     * Decides; when no waiting pod can own the call, reads the node's pods directly (bounded) and decides again; when
     * the pod's daemon does not serve yet, waits for it up to {@code daemonWait}, then refuses with its state.
     */
    public Decision.Final allocate(List<String> deviceIds) {
        long deadline = System.nanoTime() + daemonWait.toNanos();
        boolean readDirectly = false;
        while (true) {
            long seen = daemons.version();
            Decision d = decide(deviceIds);
            switch (d) {
                case Decision.Final f -> { return f; }
                case Decision.Unknown u -> {
                    if (readDirectly) {
                        long units = IdShape.of(deviceIds, book.hardware()) instanceof IdShape.Read.Shape s ? s.shape().total() : deviceIds.size();
                        return new Decision.Refused(Explain.none(book.node(), book.unit(), units, book.ordered(), book.claims()));
                    }
                    hooks.fallback().refresh(hooks.fallbackBudget());
                    readDirectly = true;
                }
                case Decision.Waiting w -> {
                    long left = deadline - System.nanoTime();
                    if (left <= 0) return new Decision.Refused(Explain.notServing(w.pod(), w.reason(), daemonWait));
                    try {
                        daemons.awaitChange(seen, Duration.ofNanos(left));
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        return new Decision.Refused(Explain.notServing(w.pod(), w.reason(), daemonWait));
                    }
                }
            }
        }
    }

    private Decision answer(Candidate c, int i, List<String> deviceIds, IdShape shape, String given, Daemons.Served.Ready daemon) {
        ContainerShare share = c.shares().get(i);
        Grant grant = answers.build(c.allocation(), share, shape, given, daemon);
        book.answerLog().record(deviceIds, new Answer(c.pod(), c.uid(), share.name(), c.allocation(), clock.instant()));
        book.answered(c, share.name(), shape.gpuIndices(), given);
        hooks.afterAllocate().run();
        return new Decision.Answered(grant);
    }

    // ---- GetPreferredAllocation ----------------------------------------------------------------------------------

    /** The container the next Allocate of {@code units} is for, without claiming it; never blocks. */
    public Target target(long units) {
        for (Candidate c : book.ordered()) {
            int i = c.firstOpen(units, book.claimsOf(c.uid()));
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
        hooks.fallback().refresh(hooks.fallbackBudget());
        return target(units);
    }

    /** GetPreferredAllocation chose {@code ids} for this container: an Allocate with exactly these IDs is its. */
    public void preferred(List<String> ids, Target.Placed t) {
        if (links.size() > 1024) links.clear();   // kubelet follows each preference with its Allocate; stale ones are few
        links.put(AnswerLog.key(ids), new Link(t.candidate().uid(), t.index()));
    }

    /**
     * Device IDs for GetPreferredAllocation ({@link Preference}): steered to the booked GPUs of the pod the next call of
     * {@code size} units is for, and linked to that pod's container.
     */
    public List<String> prefer(Target t, List<String> available, List<String> mustInclude, int size) {
        List<String> gpus = t instanceof Target.Placed p ? p.candidate().allocation().gpuUuids() : List.of();
        List<String> ids = Preference.pick(available, mustInclude, size, gpus);
        if (t instanceof Target.Placed p) preferred(ids, p);
        return ids;
    }
}
