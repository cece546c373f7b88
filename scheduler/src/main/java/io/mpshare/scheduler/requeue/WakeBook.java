package io.mpshare.scheduler.requeue;

import io.mpshare.core.model.PodKey;
import io.mpshare.scheduler.cycle.Ask;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Which refused pods to wake, and when: the decisions of {@link Requeue}, without threads or I/O (one thread owns it).
 *
 * <p>Implementation notes.
 * <ul>
 * <li>A <em>waiter</em> is a pod that a filter kept on no node, with the nodes it refused (at most
 *     {@link #MAX_NODES}; more count as every node) and the room sequence read before that filter looked at the
 *     ledger. A filter that keeps a node, a binding, a deletion forget it.</li>
 * <li>Each growth of a node's room has a sequence number. A waiter is checked against a node when the node grew after
 *     the waiter's filter read the sequence: when the growth comes later ({@link #grew}), or when it came earlier but
 *     the refusal is recorded afterwards ({@link #refused}). Either order ends in the same check, so a refusal judged
 *     on a ledger that had not yet seen a release is never left waiting for an event that already passed.</li>
 * <li>The check asks whether the pod fits the node now, as filter would answer ({@link Fit}); only then is it woken,
 *     so a release too small for a waiter costs it no retry. A woken pod stops being a waiter: kube-scheduler's retry
 *     filters it again, and a refusal then records it afresh.</li>
 * <li>Wakes are coalesced per pod (one per {@code perPod}) and limited for the whole cluster by a token bucket
 *     ({@code rate} per second, {@code burst}); the rest wait in order and are handed out by {@link #due}.</li>
 * </ul>
 */
final class WakeBook {
    /** Refused nodes recorded per waiter; a pod refused on more counts as refused everywhere. */
    static final int MAX_NODES = 256;

    /** A pod to wake, why, and how many deliveries failed so far. */
    record Wake(Ask.Gpu ask, String reason, int failures) {
        PodKey pod() { return ask.pod().key(); }

        String uid() { return ask.pod().uid(); }
    }

    /** Deliveries tried per wake before the pod goes back to waiting for the next growth. */
    static final int MAX_FAILURES = 5;

    /** @param nodes the refused nodes, or null for every node */
    private record Waiter(Ask.Gpu ask, Set<String> nodes, long seq) {
        PodKey pod() { return ask.pod().key(); }
    }

    private final Requeue.Fit fit;
    private final Duration perPod;
    private final double rate;
    private final double burst;
    private final Map<PodKey, Waiter> waiters = new HashMap<>();
    private final Map<String, Set<PodKey>> byNode = new HashMap<>();
    private final Set<PodKey> everywhere = new HashSet<>();
    private final Map<String, Long> grewAt = new HashMap<>();
    private final Map<PodKey, Wake> queued = new LinkedHashMap<>();
    private final Map<PodKey, Instant> lastWoken = new HashMap<>();
    private double tokens;
    private Instant refilled;

    /**
     * @param perPod the least time between two wakes of one pod
     * @param rate   wakes per second for the whole cluster, on average
     * @param burst  wakes at once at most
     */
    WakeBook(Requeue.Fit fit, Duration perPod, double rate, int burst, Instant now) {
        if (rate <= 0 || burst < 1) throw new IllegalArgumentException("wake rate must be > 0 and burst >= 1");
        this.fit = fit;
        this.perPod = perPod;
        this.rate = rate;
        this.burst = burst;
        this.tokens = burst;
        this.refilled = now;
    }

    /** A filter kept {@code ask}'s pod on no node and refused {@code nodes} (null: every node); {@code seq} was read before it judged. */
    void refused(Ask.Gpu ask, Collection<String> nodes, long seq) {
        PodKey pod = ask.pod().key();
        forget(pod);
        Set<String> set = nodes == null || nodes.size() > MAX_NODES ? null : new HashSet<>(nodes);
        Waiter w = new Waiter(ask, set, seq);
        waiters.put(pod, w);
        if (set == null) everywhere.add(pod);
        else for (String n : set) byNode.computeIfAbsent(n, k -> new HashSet<>()).add(pod);
        // room that grew after the filter read the sequence: the filter may have judged the ledger before it
        Iterable<String> candidates = set != null ? set : List.copyOf(grewAt.keySet());
        for (String n : candidates) {
            Long at = grewAt.get(n);
            if (at != null && at > seq && fit.fits(ask, n)) { wake(w, n); return; }
        }
    }

    /**
     * A pending pod found at start (nothing refused it in this process): a waiter refused everywhere, woken at once if
     * it fits one of {@code nodes}.
     */
    void found(Ask.Gpu ask, Collection<String> nodes) {
        refused(ask, null, Long.MAX_VALUE);
        Waiter w = waiters.get(ask.pod().key());
        for (String n : nodes) if (fit.fits(ask, n)) { wake(w, n); return; }
        waiters.put(w.pod(), new Waiter(ask, null, -1)); // from now on every growth anywhere is checked
    }

    /** The room on {@code node} grew, as the growth numbered {@code seq}. */
    void grew(String node, long seq) {
        grewAt.merge(node, seq, Math::max);
        List<PodKey> check = new ArrayList<>(everywhere);
        Set<PodKey> there = byNode.get(node);
        if (there != null) check.addAll(there);
        for (PodKey pod : check) {
            Waiter w = waiters.get(pod);
            if (w != null && w.seq() < seq && fit.fits(w.ask(), node)) wake(w, node);
        }
    }

    /** The pod was bound, deleted or kept on some node by a filter: nothing to wake it for. */
    void forget(PodKey pod) {
        queued.remove(pod);
        Waiter w = waiters.remove(pod);
        if (w == null) return;
        if (w.nodes() == null) everywhere.remove(pod);
        else for (String n : w.nodes()) byNode.computeIfPresent(n, (k, s) -> { s.remove(pod); return s.isEmpty() ? null : s; });
    }

    /**
     * A wake that could not be delivered: tried again after the per-pod spacing, up to {@link #MAX_FAILURES} times;
     * then the pod is a waiter again, checked at the next growth anywhere. Nothing when it was recorded anew meanwhile.
     */
    void failed(Wake w) {
        if (waiters.containsKey(w.pod()) || queued.containsKey(w.pod())) return;
        if (w.failures() + 1 < MAX_FAILURES) {
            queued.put(w.pod(), new Wake(w.ask(), w.reason(), w.failures() + 1));
            return;
        }
        waiters.put(w.pod(), new Waiter(w.ask(), null, -1));
        everywhere.add(w.pod());
    }

    /** The wakes to deliver now, within the per-pod spacing and the cluster's bucket; the rest stay queued. */
    List<Wake> due(Instant now) {
        refill(now);
        List<Wake> out = new ArrayList<>();
        var it = queued.values().iterator();
        while (it.hasNext() && tokens >= 1) {
            Wake w = it.next();
            Instant last = lastWoken.get(w.pod());
            if (last != null && now.isBefore(last.plus(perPod))) continue;
            it.remove();
            tokens -= 1;
            lastWoken.put(w.pod(), now);
            out.add(w);
        }
        if (lastWoken.size() > 4 * (waiters.size() + queued.size()) + 1024) lastWoken.values().removeIf(t -> now.isAfter(t.plus(perPod)));
        return out;
    }

    /** When {@link #due} may next have something, or null when nothing is queued. */
    Instant nextDue(Instant now) {
        if (queued.isEmpty()) return null;
        Instant next = null;
        for (Wake w : queued.values()) {
            Instant last = lastWoken.get(w.pod());
            Instant at = last == null ? now : last.plus(perPod);
            if (next == null || at.isBefore(next)) next = at;
        }
        if (tokens < 1) {
            Instant refill = refilled.plusNanos((long) ((1 - tokens) / rate * 1e9));
            if (refill.isAfter(next)) next = refill;
        }
        return next.isBefore(now) ? now : next;
    }

    int waiting() { return waiters.size(); }

    int queued() { return queued.size(); }

    private void wake(Waiter w, String node) {
        forget(w.pod());
        queued.put(w.pod(), new Wake(w.ask(), "node " + node + " has room for it", 0));
    }

    private void refill(Instant now) {
        if (now.isAfter(refilled)) {
            tokens = Math.min(burst, tokens + Duration.between(refilled, now).toNanos() / 1e9 * rate);
            refilled = now;
        }
    }
}
