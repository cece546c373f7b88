package io.mpshare.kube.node;

import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodStatus;
import io.mpshare.core.MemoryUnit;
import io.mpshare.core.ledger.Allocation;
import io.mpshare.core.model.NodeInventory;
import io.mpshare.core.model.PodKey;
import io.mpshare.kube.KubePod;
import io.mpshare.kube.node.NodePod.Booking;
import io.mpshare.kube.node.NodePod.RunningContainer;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * One decoded and checked view of the bookings of this node's pods, fed by the node's pod informer (and its direct
 * reads), told to the node agent's parts as {@link NodePod}s: Allocate's waiting pods, the server ceilings and the
 * policer read this one view instead of decoding each pod event themselves.
 *
 * <p>Implementation notes.
 * <ul>
 * <li><b>Checked.</b> Each event's annotations are checked against the pod's own resources ({@link BookingCheck}): a
 *     booking counts only with the demand its resources ask, for this node, on a pod that asks {@code gpu-mem}. An
 *     annotation that fails the check is not counted: the pod keeps the booking last counted for it, or has none; it is
 *     logged once per distinct annotation and reported to {@link Refusals} (a counter).</li>
 * <li><b>Order.</b> A version older than one already read for the pod is ignored, so a direct read and the watch can
 *     arrive in either order. A correction mpshare wrote itself ({@link #corrected}) counts at once, before its echo.</li>
 * <li><b>Concurrency.</b> Events are applied one at a time (the informer's thread, a direct read's, the reconciler's)
 *     and listeners are told inside, in the order added: keep them short, never block. {@link #booked} and
 *     {@link #bookingOf} read concurrent maps without a lock.</li>
 * </ul>
 */
public final class NodeBookings {
    private static final Logger LOG = Logger.getLogger(NodeBookings.class.getName());

    /** Told about each pod of this node after it was read and checked. */
    public interface Listener {
        /** The pod was added or changed (or read again); {@code pod.booking()} is what this view counts for it. */
        default void changed(NodePod pod) {}

        /** The pod is gone. */
        default void deleted(NodePod pod) {}

        /** The set of counted bookings changed ({@link #booked}). */
        default void bookingsChanged() {}
    }

    /** Where a pod's annotations that were not counted are reported: once per distinct annotation. */
    public interface Refusals {
        void refused(PodKey pod, Distrust why);

        Refusals NONE = (pod, why) -> {};
    }

    private final String node;
    private final NodeInventory inventory;
    private final MemoryUnit unit;
    private final Refusals refusals;
    private final List<Listener> listeners = new CopyOnWriteArrayList<>();
    private final Map<String, NodePod> pods = new ConcurrentHashMap<>();
    private final Map<String, Allocation> booked = new ConcurrentHashMap<>();
    private final Map<PodKey, String> uids = new ConcurrentHashMap<>();
    private final Map<String, Long> versions = new ConcurrentHashMap<>();
    private final Map<String, String> reported = new ConcurrentHashMap<>();

    /** @param inventory this node's GPUs (to name the GPUs of ACK-placed pods) */
    public NodeBookings(String node, NodeInventory inventory, MemoryUnit unit, Refusals refusals) {
        this.node = node;
        this.inventory = inventory;
        this.unit = unit;
        this.refusals = refusals;
    }

    public String node() { return node; }

    /** Add listeners before the informer starts, so they see the first list too. */
    public void addListener(Listener l) { listeners.add(l); }

    /** An informer event, or a direct read, of a pod bound to this node. */
    public synchronized void upserted(Pod pod) {
        KubePod p = KubePod.of(pod);
        String uid = p.uid();
        if (uid.isEmpty() || stale(uid, p.resourceVersion())) return;
        Booking b = p.finished() ? BookingCheck.NONE : switch (BookingCheck.check(p, node, inventory, unit)) {
            case BookingCheck.Trusted t -> {
                reported.remove(uid);
                yield t.booking();
            }
            case BookingCheck.Distrusted d -> {
                report(p.key(), uid, d);
                Allocation had = booked.get(uid);
                yield had != null ? new Booking.Booked(had) : d.booking();
            }
        };
        NodePod np = new NodePod(p.key(), uid, p.phase(), p.deleting(), b, p.facts().toPodInfoLenient(unit), containers(pod), p.workload());
        if (p.finished()) versions.remove(uid);
        apply(np);
    }

    /** The pod is gone. */
    public synchronized void deleted(Pod pod) {
        KubePod p = KubePod.of(pod);
        String uid = p.uid();
        if (uid.isEmpty()) return;
        NodePod np = pods.remove(uid);
        if (np == null) np = new NodePod(p.key(), uid, p.phase(), p.deleting(), BookingCheck.NONE, p.facts().toPodInfoLenient(unit), List.of(), p.workload());
        uids.remove(np.key(), uid);
        versions.remove(uid);
        reported.remove(uid);
        boolean changed = booked.remove(uid) != null;
        for (Listener l : listeners) l.deleted(np);
        if (changed) for (Listener l : listeners) l.bookingsChanged();
    }

    /**
     * A booking mpshare wrote itself (the reconciler moved it to the GPUs kubelet gave): counted now, so nothing reads the
     * old GPUs until the watch echoes the write. Its demand is the one this view derived.
     */
    public synchronized void corrected(Allocation a) {
        NodePod had = pods.get(a.podUid());
        if (had == null) return;   // gone meanwhile: nothing to count
        apply(had.withBooking(new Booking.Booked(a)));
    }

    private void apply(NodePod np) {
        pods.put(np.uid(), np);
        uids.put(np.key(), np.uid());
        boolean changed = np.booking() instanceof Booking.Booked bk
                ? !bk.allocation().equals(booked.put(np.uid(), bk.allocation()))
                : booked.remove(np.uid()) != null;
        for (Listener l : listeners) l.changed(np);
        if (changed) for (Listener l : listeners) l.bookingsChanged();
    }

    /** The bookings counted now: pods bound here, not finished (a terminating pod's containers may still run), checked. */
    public List<Allocation> booked() { return List.copyOf(booked.values()); }

    /** The booking counted for {@code pod} now, or empty. */
    public Optional<Allocation> bookingOf(PodKey pod) {
        String uid = uids.get(pod);
        return uid == null ? Optional.empty() : Optional.ofNullable(booked.get(uid));
    }

    /** How many pods of this node are known now. */
    public int size() { return pods.size(); }

    /** Whether {@code rv} is older than the version already read for {@code uid} (numeric versions only). */
    private boolean stale(String uid, String rv) {
        if (rv == null) return false;
        long v;
        try { v = Long.parseLong(rv); } catch (NumberFormatException e) { return false; }
        Long had = versions.get(uid);
        if (had != null && had > v) return true;
        versions.put(uid, v);
        return false;
    }

    private void report(PodKey key, String uid, BookingCheck.Distrusted d) {
        if (d.reason().equals(reported.put(uid, d.reason()))) return;
        LOG.log(Level.WARNING, "{0} ({1}); the node counts {2}", new Object[] {d.reason(), d.why().label(),
                booked.containsKey(uid) ? "the booking it last checked for the pod" : "no booking for the pod"});
        refusals.refused(key, d.why());
    }

    private static List<RunningContainer> containers(Pod pod) {
        PodStatus s = pod.getStatus();
        if (s == null) return List.of();
        List<RunningContainer> out = new ArrayList<>();
        for (List<ContainerStatus> list : List.of(orEmpty(s.getInitContainerStatuses()), orEmpty(s.getContainerStatuses()),
                orEmpty(s.getEphemeralContainerStatuses())))
            for (ContainerStatus c : list) if (c.getContainerID() != null && c.getName() != null) out.add(new RunningContainer(c.getContainerID(), c.getName()));
        return out;
    }

    private static List<ContainerStatus> orEmpty(List<ContainerStatus> l) { return l == null ? List.of() : l; }
}
