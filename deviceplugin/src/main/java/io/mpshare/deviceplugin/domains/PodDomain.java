package io.mpshare.deviceplugin.domains;

import io.mpshare.core.isolation.FaultDomains.Choice;
import io.mpshare.core.ledger.Allocation;
import io.mpshare.core.model.PodKey;

import java.util.List;
import java.util.Objects;
import java.util.OptionalLong;

/**
 * One booked pod of this node and its fault domain.
 *
 * @param choice    its domain's kind and key, chosen when the pod was first seen booked and kept for its life (its
 *                  containers keep the pipe directory they were answered)
 * @param clientUid the effective {@code runAsUser} of its GPU containers, when known
 * @param booking   its checked booking now
 * @param asked     the GPUs Allocate was asked for (kubelet's device IDs), when they are not the booked ones; empty
 *                  until then
 */
public record PodDomain(PodKey pod, String uid, String workload, Choice choice, OptionalLong clientUid, Allocation booking,
                        List<Integer> asked) {
    public PodDomain {
        Objects.requireNonNull(pod, "pod");
        Objects.requireNonNull(uid, "uid");
        Objects.requireNonNull(workload, "workload");
        Objects.requireNonNull(choice, "choice");
        Objects.requireNonNull(clientUid, "clientUid");
        Objects.requireNonNull(booking, "booking");
        asked = List.copyOf(asked);
    }

    /** The GPUs whose domain serves the pod: those kubelet gave it, else the booked ones. */
    public List<Integer> gpus() { return asked.isEmpty() ? booking.gpuIndices() : asked; }

    /** Served by the colour's node daemon: its kind says so, or its containers see several GPUs. */
    public boolean onNodeDaemon() { return choice.onNodeDaemon() || gpus().size() > 1; }

    PodDomain withBooking(Allocation b) { return new PodDomain(pod, uid, workload, choice, clientUid, b, asked); }

    PodDomain withAsked(List<Integer> gpus) {
        return new PodDomain(pod, uid, workload, choice, clientUid, booking, gpus.equals(booking.gpuIndices()) ? List.of() : gpus);
    }
}
