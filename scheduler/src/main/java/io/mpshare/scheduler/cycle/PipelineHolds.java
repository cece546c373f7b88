package io.mpshare.scheduler.cycle;

import io.mpshare.core.ledger.Allocation;
import io.mpshare.core.ledger.AssumeResult;
import io.mpshare.core.ledger.Ledger;
import io.mpshare.core.ledger.Phase;
import io.mpshare.core.model.PodInfo;
import io.mpshare.core.model.PodKey;
import io.mpshare.core.policy.PlacementEngine;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The room a pod was scored for, held in the ledger from its prioritize until its bind or a short expiry
 * (docs/decisions/extender-pipelining.md).
 *
 * <p>Implementation notes.
 * <ul>
 * <li>Why: kube-scheduler runs the next pod's filter while the previous pod's bind is still in flight, so
 *     without a hold two pods are sent to the one GPU that fits one of them and the second bind fails.</li>
 * <li>A hold is an ordinary ASSUMED booking ({@link Ledger#assume}) on the node prioritize ranked first,
 *     with the GPUs bind would take there; every later filter, prioritize and bind counts it. The pod's own
 *     hold never counts against the pod ({@code PlacementEngine}'s {@code self}).</li>
 * <li>The bind {@link #claim claims} the hold: from then on the binder owns the booking (it keeps it, moves
 *     it to the node kube-scheduler chose, or releases it on failure). An unclaimed hold is released after
 *     {@code ttl} by {@link #expire}, only if the ledger still holds exactly it.</li>
 * <li>Concurrency: the map is only an index of which ASSUMED bookings are holds; the ledger's per-pod,
 *     per-node atomic steps decide the bookings themselves. {@link #claim} and the release of one expired hold
 *     hold this object's monitor, so a bind that arrives as its hold expires either claims it (no release) or
 *     finds it released before its own assume (which then checks the fit afresh).</li>
 * </ul>
 */
public final class PipelineHolds {
    private final PlacementEngine engine;
    private final InstantSource clock;
    private final Duration ttl;
    private final Map<PodKey, Allocation> held = new ConcurrentHashMap<>();

    /** Holds turned off (the simulator, benchmarks of the filter alone): nothing is held, nothing to claim. */
    public static PipelineHolds off(PlacementEngine engine) { return new PipelineHolds(engine, engine.ledger().clock(), Duration.ZERO); }

    /** @param ttl how long a hold waits for its bind; zero turns holds off */
    public PipelineHolds(PlacementEngine engine, InstantSource clock, Duration ttl) {
        this.engine = engine;
        this.clock = clock;
        this.ttl = ttl;
        if (ttl.isNegative()) throw new IllegalArgumentException("hold TTL must be >= 0");
    }

    public boolean enabled() { return !ttl.isZero(); }

    /**
     * Holds the pod's demand on {@code node} (or keeps the hold it has there). Does nothing when holds are off, the
     * pod is already bound, or the node has no room.
     */
    public void hold(Ask.Gpu ask, String node) {
        if (!enabled() || node == null) return;
        PodInfo pod = ask.pod();
        Ledger ledger = engine.ledger();
        var before = ledger.allocation(pod.key());
        if (before.isPresent() && before.get().phase() != Phase.ASSUMED) return; // bound: nothing to hold
        if (before.isPresent() && !held.containsKey(pod.key()) && before.get().node().equals(node)) return; // a bind owns it
        switch (engine.assume(pod.key(), pod.uid(), node, ask.demand())) {
            case AssumeResult.Assumed a -> held.put(pod.key(), a.allocation());
            case AssumeResult.AlreadyPlaced a -> { if (held.containsKey(pod.key())) held.put(pod.key(), a.allocation()); }
            case AssumeResult.Rejected r -> { }
        }
    }

    /** The bind of {@code pod} takes over its hold: true when there was one (the booking is then the binder's). */
    public synchronized boolean claim(PodKey pod) { return held.remove(pod) != null; }

    /** Releases holds older than the TTL whose booking is still exactly the hold; returns what was released. */
    public List<Allocation> expire() {
        Instant cutoff = clock.instant().minus(ttl);
        List<Allocation> gone = new ArrayList<>();
        for (var e : held.entrySet()) {
            Allocation h = e.getValue();
            if (h.assumedAt().isAfter(cutoff)) continue;
            synchronized (this) { // against claim: released before a bind's assume, or claimed and kept
                if (!held.remove(e.getKey(), h)) continue; // claimed or renewed meanwhile
                var now = engine.ledger().allocation(h.pod());
                if (now.isPresent() && now.get().phase() == Phase.ASSUMED && now.get().samePlacement(h) && now.get().assumedAt().equals(h.assumedAt())) {
                    engine.ledger().release(h.pod());
                    gone.add(h);
                }
            }
        }
        return gone;
    }

    /** Holds waiting for their bind now. */
    public int size() { return held.size(); }
}
