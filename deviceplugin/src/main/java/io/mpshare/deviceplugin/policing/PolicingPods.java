package io.mpshare.deviceplugin.policing;

import io.mpshare.core.ledger.Allocation;
import io.mpshare.deviceplugin.allocation.AnswerSink;
import io.mpshare.kube.node.NodeBookings;
import io.mpshare.kube.node.NodePod;
import io.mpshare.policing.NodeView;
import io.mpshare.policing.proc.ContainerIndex;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

/**
 * The policer's view of this node ({@link NodeView}): the node's checked bookings ({@link NodeBookings}: demand from
 * each pod's own resources, so a pod's allowance is never what its annotation claims), its containers' IDs into the
 * {@link ContainerIndex}, UID → name into the {@link PodIndex}; and once, when a pod gets a {@code deletionTimestamp},
 * {@code endPod} (which must hand off: this runs on the thread that applied the pod event). Allocate tells it
 * ({@link AnswerSink}) when a pod was answered on other GPUs than its booking names: that answer is what the policer
 * judges by until the reconciler's corrected booking comes back.
 */
public final class PolicingPods implements NodeBookings.Listener, AnswerSink, NodeView {
    private final NodeBookings bookings;
    private final ContainerIndex containers;
    private final PodIndex pods;
    private final Consumer<String> endPod;
    private final Set<String> ending = ConcurrentHashMap.newKeySet();
    private final Map<String, Allocation> answered = new ConcurrentHashMap<>();
    private final Map<Integer, Boolean> health = new ConcurrentHashMap<>();

    /** @param bookings this node's checked bookings (add this feed to its listeners) */
    public PolicingPods(NodeBookings bookings, ContainerIndex containers, PodIndex pods, Consumer<String> endPod) {
        this.bookings = bookings;
        this.containers = containers;
        this.pods = pods;
        this.endPod = endPod;
    }

    @Override public void changed(NodePod pod) {
        String uid = pod.uid();
        if (uid.isBlank()) return;
        pods.put(uid, pod.key());
        for (NodePod.RunningContainer c : pod.containers()) containers.put(uid, c.id(), c.name());
        if (pod.finished()) answered.remove(uid);
        else if (pod.booking() instanceof NodePod.Booking.Booked b) {
            Allocation given = answered.get(uid);
            if (given != null && given.gpuIndices().equals(b.allocation().gpuIndices())) answered.remove(uid);   // the booking caught up
        }
        if (pod.deleting() && ending.add(uid)) endPod.accept(uid);
    }

    @Override public void deleted(NodePod pod) {
        String uid = pod.uid();
        if (uid.isBlank()) return;
        answered.remove(uid);
        containers.forget(uid);
        pods.remove(uid);
        ending.remove(uid);
    }

    /** Allocate answered this pod on other GPUs than its booking names (until the reconciler's correction comes back). */
    @Override public void answered(Allocation asAnswered) { answered.put(asAnswered.podUid(), asAnswered); }

    @Override public void cleared(String podUid) { answered.remove(podUid); }

    /** The checked bookings, each as answered where Allocate answered it on other GPUs. */
    @Override public List<Allocation> allocations() {
        List<Allocation> out = new ArrayList<>();
        for (Allocation a : bookings.booked()) {
            if (a.podUid().isBlank()) continue;
            Allocation given = answered.get(a.podUid());
            out.add(given != null ? given : a);
        }
        return out;
    }

    /** The device plugin's health of GPU {@code index}, for the per-GPU metric. */
    public void healthy(int index, boolean h) { health.put(index, h); }

    @Override public boolean healthy(int index) { return health.getOrDefault(index, true); }
}
