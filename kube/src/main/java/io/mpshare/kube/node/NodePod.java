package io.mpshare.kube.node;

import io.mpshare.core.ledger.Allocation;
import io.mpshare.core.model.PodInfo;
import io.mpshare.core.model.PodKey;

import java.util.List;
import java.util.Objects;

/**
 * One pod of this node as {@link NodeBookings} read it, once per informer event: what the node agent's parts need of
 * it, its booking already decoded and checked.
 *
 * @param phase      {@code status.phase}, or null when not reported yet
 * @param deleting   {@code metadata.deletionTimestamp} is set (its containers may still run)
 * @param request    what it asks of shared GPUs, read leniently (for a pod that is refused: its containers' units)
 * @param containers its containers' runtime IDs, from the pod's status
 * @param workload   what made it ({@code namespace/Kind/name} of its controller, or {@code namespace/Pod/name}): the
 *                   unit fault suspects are named by
 */
public record NodePod(PodKey key, String uid, String phase, boolean deleting, Booking booking, PodInfo request,
                      List<RunningContainer> containers, String workload) {
    public NodePod {
        Objects.requireNonNull(key, "key");
        workload = workload == null || workload.isEmpty() ? key.namespace() + "/Pod/" + key.name() : workload;
        uid = uid == null ? "" : uid;
        Objects.requireNonNull(booking, "booking");
        Objects.requireNonNull(request, "request");
        containers = List.copyOf(containers);
    }

    /** Succeeded or Failed: its containers are gone and its GPUs are free. */
    public boolean finished() { return "Succeeded".equals(phase) || "Failed".equals(phase); }

    /** Not started yet (phase Pending or not reported): kubelet may still admit it. */
    public boolean pending() { return phase == null || "Pending".equals(phase); }

    /** The same pod with another booking (a correction mpshare itself wrote). */
    NodePod withBooking(Booking b) { return new NodePod(key, uid, phase, deleting, b, request, containers, workload); }

    /** What the node may count for this pod. */
    public sealed interface Booking {
        /** A booking for this node that passed the checks: GPUs from the annotation, demand from the pod's resources. */
        record Booked(Allocation allocation) implements Booking {}

        /** The pod asks {@code aliyun.com/gpu-mem} but has no booking this node may count; {@code reason} says why. */
        record Unplaced(String reason) implements Booking {}

        /** The pod asks no shared GPU memory (any annotation it carries is ignored). */
        record None() implements Booking {}
    }

    /** A container kubelet runs for the pod: its runtime ID ({@code containerd://…}) and name. */
    public record RunningContainer(String id, String name) {}
}
