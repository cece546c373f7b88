package io.mpshare.deviceplugin.policing;

import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.Pod;
import io.mpshare.core.MemoryUnit;
import io.mpshare.core.codec.AllocationCodec;
import io.mpshare.core.model.NodeInventory;
import io.mpshare.core.ledger.Allocation;
import io.mpshare.deviceplugin.allocation.AllocationManager;
import io.mpshare.deviceplugin.cluster.PodListener;
import io.mpshare.kube.KubePod;
import io.mpshare.policing.LiveNodeView;
import io.mpshare.policing.proc.ContainerIndex;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

/**
 * The pod informer's side of the policer: for each pod of this node, its decoded {@code mpshare.io/allocation} into the
 * {@link LiveNodeView} (removed when it finishes or goes), its containers' IDs from the pod status into the
 * {@link ContainerIndex}, its UID → name into the {@link PodIndex}; and once, when the pod gets a
 * {@code deletionTimestamp}, {@code endPod} (which must hand off: this runs on the informer thread). Allocate tells it
 * ({@link AllocationManager.AnswerSink}) when a pod was answered on other GPUs than its annotation names: that answer is
 * what the policer judges by until the reconciler's corrected annotation comes back through the informer.
 */
public final class PolicingPods implements PodListener, AllocationManager.AnswerSink {
    private final NodeInventory inventory;
    private final MemoryUnit unit;
    private final LiveNodeView view;
    private final ContainerIndex containers;
    private final PodIndex pods;
    private final Consumer<String> endPod;
    private final Set<String> ending = ConcurrentHashMap.newKeySet();
    private final Map<String, Allocation> decoded = new ConcurrentHashMap<>();
    private final Map<String, Allocation> answered = new ConcurrentHashMap<>();

    public PolicingPods(NodeInventory inventory, MemoryUnit unit, LiveNodeView view, ContainerIndex containers, PodIndex pods, Consumer<String> endPod) {
        this.inventory = inventory;
        this.unit = unit;
        this.view = view;
        this.containers = containers;
        this.pods = pods;
        this.endPod = endPod;
    }

    @Override public void upserted(Pod pod) {
        String uid = pod.getMetadata().getUid();
        if (uid == null || uid.isBlank()) return;
        KubePod p = KubePod.of(pod);
        pods.put(uid, p.key());
        if (pod.getStatus() != null) {
            index(uid, pod.getStatus().getInitContainerStatuses());
            index(uid, pod.getStatus().getContainerStatuses());
            index(uid, pod.getStatus().getEphemeralContainerStatuses());
        }
        if (p.finished()) {
            view.remove(uid);
            decoded.remove(uid);
            answered.remove(uid);
        } else {
            AllocationCodec.found(p.booking(inventory, unit))
                    .filter(a -> !a.podUid().isBlank())
                    .ifPresentOrElse(this::booked, () -> { decoded.remove(uid); view.remove(uid); });
        }
        if (pod.getMetadata().getDeletionTimestamp() != null && ending.add(uid)) endPod.accept(uid);
    }

    /** The annotation as read; what was answered wins until the annotation names the same GPUs. */
    private void booked(Allocation a) {
        decoded.put(a.podUid(), a);
        Allocation given = answered.get(a.podUid());
        if (given != null && given.gpuIndices().equals(a.gpuIndices())) {
            answered.remove(a.podUid());
            given = null;
        }
        view.put(given != null ? given : a);
    }

    /** Allocate answered this pod on other GPUs than its annotation names (until the reconciler's correction comes back). */
    @Override public void answered(Allocation asAnswered) {
        answered.put(asAnswered.podUid(), asAnswered);
        view.put(asAnswered);
    }

    @Override public void cleared(String podUid) {
        if (answered.remove(podUid) == null) return;
        Allocation d = decoded.get(podUid);
        if (d != null) view.put(d);
    }

    @Override public void deleted(Pod pod) {
        String uid = pod.getMetadata().getUid();
        if (uid == null || uid.isBlank()) return;
        view.remove(uid);
        decoded.remove(uid);
        answered.remove(uid);
        containers.forget(uid);
        pods.remove(uid);
        ending.remove(uid);
    }

    private void index(String uid, List<ContainerStatus> statuses) {
        if (statuses == null) return;
        for (ContainerStatus s : statuses) if (s.getContainerID() != null && s.getName() != null) containers.put(uid, s.getContainerID(), s.getName());
    }
}
