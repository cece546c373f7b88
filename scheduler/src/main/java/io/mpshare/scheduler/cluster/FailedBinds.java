package io.mpshare.scheduler.cluster;

import io.mpshare.core.ledger.Allocation;
import io.mpshare.core.model.PodKey;

import java.time.Instant;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Bookings a failed bind has released, so that the pod watch does not bring them back: the binder's own
 * annotation PATCH echoes through the informer, often after the bind failed and released its room, and would
 * otherwise restore the booking until the assume TTL (issue 12, item 12). Only an ASSUMED booking of a pod
 * that is still not bound, with an assume time not after the released one, is refused; a bound pod is always
 * restored (the Binding did land).
 */
public final class FailedBinds {
    /** How long an entry is kept: far past any informer delay. */
    static final java.time.Duration KEEP = java.time.Duration.ofMinutes(10);
    private final ConcurrentHashMap<PodKey, Instant> released = new ConcurrentHashMap<>();

    /** A bind of {@code a.pod()} failed and released {@code a}. */
    public void released(Allocation a) { released.merge(a.pod(), a.assumedAt(), (x, y) -> x.isAfter(y) ? x : y); }

    /** True when {@code echoed} (read from an unbound pod's annotation) is a booking a failed bind already released. */
    boolean stale(Allocation echoed) {
        Instant at = released.get(echoed.pod());
        return at != null && !echoed.assumedAt().isAfter(at);
    }

    /** The pod is gone: nothing of it can echo any more. */
    void forget(PodKey pod) { released.remove(pod); }

    /** Drops entries older than {@code cutoff} (their echoes are long delivered). */
    void trim(Instant cutoff) { released.values().removeIf(t -> t.isBefore(cutoff)); }

    int size() { return released.size(); }
}
