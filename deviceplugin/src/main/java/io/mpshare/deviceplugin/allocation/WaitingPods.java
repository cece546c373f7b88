package io.mpshare.deviceplugin.allocation;

import io.mpshare.core.MemoryUnit;
import io.mpshare.core.ledger.Allocation;
import io.mpshare.core.ledger.Phase;
import io.mpshare.kube.node.NodePod;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * The bookings' side of Allocate: each pod of this node filed once per change as a {@link Candidate} (placed or
 * unplaced) or dropped, from the checked view {@code NodeBookings} tells it. Runs on the thread that applied the change;
 * everything here is a concurrent map, read by Allocate without a lock.
 */
final class WaitingPods {
    private final MemoryUnit unit;
    private final Consumer<String> forgotten;
    private final AtomicLong next = new AtomicLong();

    private final ConcurrentHashMap<String, Candidate> candidates = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, Long> seqs = new ConcurrentHashMap<>();
    private final Set<String> refused = ConcurrentHashMap.newKeySet();

    WaitingPods(MemoryUnit unit, Consumer<String> forgotten) {
        this.unit = unit;
        this.forgotten = forgotten;
    }

    void changed(NodePod pod) {
        String uid = pod.uid();
        if (uid.isEmpty()) return;
        if (pod.finished() || pod.deleting()) {
            candidates.remove(uid);
            if (pod.finished()) forget(uid);   // terminating: keep what it holds
            return;
        }
        long seq = seqs.computeIfAbsent(uid, u -> next.incrementAndGet());
        switch (pod.booking()) {
            case NodePod.Booking.Booked b -> found(uid, seq, b.allocation());
            case NodePod.Booking.Unplaced u -> unplaced(pod, seq, u.reason());
            case NodePod.Booking.None n -> forget(uid);
        }
    }

    /** A checked booking for this node: a candidate until it is assigned. */
    private void found(String uid, long seq, Allocation a) {
        if (a.phase() == Phase.ASSIGNED) candidates.remove(uid);
        else candidates.put(uid, Candidate.placed(a, unit, seq));
    }

    private void unplaced(NodePod pod, long seq, String reason) {
        if (!pod.pending()) { candidates.remove(pod.uid()); return; }
        file(Candidate.unplaced(pod.request(), unit, seq, reason));
    }

    private void file(Candidate c) {
        if (refused.contains(c.uid()) || c.units().length == 0) { candidates.remove(c.uid()); return; }
        candidates.put(c.uid(), c);
    }

    void deleted(NodePod pod) { forget(pod.uid()); }

    private void forget(String uid) {
        candidates.remove(uid);
        refused.remove(uid);
        seqs.remove(uid);
        forgotten.accept(uid);
    }

    /** An unplaced pod was refused: kubelet fails it, so no later call is meant for it. */
    void refused(String uid) {
        refused.add(uid);
        candidates.remove(uid);
    }

    /** Sorted: part-answered pods first (kubelet finishes one pod before the next), then by arrival. */
    List<Candidate> ordered(Predicate<Candidate> started) {
        var list = new ArrayList<>(candidates.values());
        list.sort(Comparator.<Candidate>comparingInt(c -> started.test(c) ? 0 : 1).thenComparingLong(Candidate::seq));
        return list;
    }

    Collection<Candidate> all() { return candidates.values(); }

    Optional<Candidate> candidate(String uid) { return Optional.ofNullable(candidates.get(uid)); }

    int size() { return candidates.size(); }
}
