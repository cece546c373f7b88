package io.mpshare.kube.node;

import io.mpshare.core.MemoryUnit;
import io.mpshare.core.Names;
import io.mpshare.core.codec.AllocationCodec.Decoded;
import io.mpshare.core.ledger.Allocation;
import io.mpshare.core.model.ContainerShare;
import io.mpshare.core.model.DemandResolver;
import io.mpshare.core.model.GpuDemand;
import io.mpshare.core.model.NodeInventory;
import io.mpshare.core.model.PodInfo;
import io.mpshare.kube.KubePod;
import io.mpshare.kube.PodFacts;
import io.mpshare.kube.node.NodePod.Booking;

/**
 * What a pod of this node may count, from its annotations checked against what the pod itself asks
 * (docs/decisions/node-bookings.md). A tenant can rewrite its own pod's annotations at any time; its {@code resources}
 * it cannot change. So:
 * <ul>
 * <li>the demand is derived from the pod's resources with the extender's own rule ({@link DemandResolver}: the
 *     {@code gpu-count} label, peak over init, sidecar and app containers), never read from {@code charge=} or
 *     {@code c=}; the context reserve is taken from the annotation only within its documented bounds;</li>
 * <li>an annotation whose demand is not that derived demand, on a pod that asks no {@code gpu-mem}, or for another node
 *     is not counted ({@link Distrusted}, with a {@link Distrust} for the counter);</li>
 * <li>only the GPU set (and the phase) comes from the annotation; the reconciler checks the GPUs against kubelet's
 *     pod-resources.</li>
 * </ul>
 * Pods placed by ACK's gpushare (only {@code ALIYUN_COM_GPU_MEM_*}) book no context reserve; their demand is derived
 * likewise and must match the pod total they carry.
 */
final class BookingCheck {
    private BookingCheck() {}

    /** The check's outcome: a booking the pod may have as it says, or what its annotations say distrusted. */
    sealed interface Outcome {
        Booking booking();
    }

    record Trusted(Booking booking) implements Outcome {}

    /**
     * Not counted, for {@code reason}: {@code booking} is what the pod has without it ({@code Unplaced} when it asks
     * gpu-mem, else {@code None}).
     */
    record Distrusted(Booking booking, Distrust why, String reason) implements Outcome {}

    static final Booking NONE = new Booking.None();

    static Outcome check(KubePod p, String node, NodeInventory inventory, MemoryUnit unit) {
        boolean asks = p.asksGpuMem();
        return switch (p.booking(inventory, unit)) {
            case Decoded.None n -> new Trusted(asks ? new Booking.Unplaced("pod " + p.key() + " asks " + Names.RESOURCE_GPU_MEM
                    + " but carries no " + Names.ANN_ALLOCATION + ", so the mpshare scheduler extender did not place it") : NONE);
            case Decoded.Malformed m -> distrusted(asks, Distrust.MALFORMED, m.reason());
            case Decoded.Found f -> found(p, f.allocation(), asks, node, unit);
        };
    }

    private static Outcome found(KubePod p, Allocation a, boolean asks, String node, MemoryUnit unit) {
        if (!asks) return distrusted(false, Distrust.ASKS_NO_GPU_MEM, "pod " + p.key() + " asks no " + Names.RESOURCE_GPU_MEM
                + " but carries an allocation for GPU(s) " + a.gpuIndices() + ": not counted");
        if (!a.node().equals(node) || !node.equals(p.nodeName()))
            return distrusted(true, Distrust.NOT_THIS_NODE, "pod " + a.pod() + " has an allocation for node " + a.node() + ", not " + node);
        boolean ours = p.annotations().containsKey(Names.ANN_ALLOCATION);
        long reserve = ours ? a.demand().reserveMib() : 0;
        if (ours && (reserve < Names.MIN_CONTEXT_RESERVE_MIB || reserve > Names.MAX_CONTEXT_RESERVE_MIB))
            return distrusted(true, Distrust.RESERVE_OUT_OF_BOUNDS, Names.ANN_ALLOCATION + " of pod " + a.pod() + " books a context reserve of "
                    + reserve + " MiB, outside " + Names.MIN_CONTEXT_RESERVE_MIB + "-" + Names.MAX_CONTEXT_RESERVE_MIB + ": not counted");
        GpuDemand derived;
        try {
            switch (new DemandResolver(reserve, unit).resolve(asked(p.facts(), unit))) {
                case DemandResolver.Resolution.Resolved r -> derived = r.demand();
                case DemandResolver.Resolution.Invalid i -> { return distrusted(true, Distrust.INVALID_REQUEST, i.reason()); }
                case DemandResolver.Resolution.NoGpu n -> {
                    return distrusted(false, Distrust.ASKS_NO_GPU_MEM, "pod " + p.key() + " asks no shared GPU: its allocation is not counted");
                }
            }
        } catch (IllegalArgumentException | ArithmeticException e) {
            return distrusted(true, Distrust.INVALID_REQUEST, e.getMessage());
        }
        boolean agrees = ours ? derived.equals(a.demand())
                : derived.gpuCount() == a.demand().gpuCount() && derived.requestedMib() == a.demand().requestedMib();
        if (!agrees)
            return distrusted(true, Distrust.DISAGREES_WITH_RESOURCES, (ours ? Names.ANN_ALLOCATION : Names.ACK_GPU_MEM_POD) + " of pod "
                    + a.pod() + " books " + describe(a.demand()) + " but its resources ask " + describe(derived) + ": not counted");
        return new Trusted(new Booking.Booked(new Allocation(a.pod(), a.podUid(), a.node(), a.gpuIndices(), a.gpuUuids(), derived,
                a.assumedAt(), a.phase())));
    }

    /** What the pod asks, from its resources and labels alone (the context-reserve annotation is the booking's to give). */
    private static PodInfo asked(PodFacts f, MemoryUnit unit) {
        return new PodFacts(f.namespace(), f.name(), f.uid(), f.gpuCountLabel(), f.runAsUser(), f.containers(), null).toPodInfo(unit);
    }

    private static Distrusted distrusted(boolean asks, Distrust why, String reason) {
        return new Distrusted(asks ? new Booking.Unplaced(reason) : NONE, why, reason);
    }

    /** {@code 2 GPU(s), charge 2048 MiB/30% each (main 1024 MiB, reserve 1024 MiB)}. */
    static String describe(GpuDemand d) {
        var sb = new StringBuilder().append(d.gpuCount()).append(" GPU(s), charge ").append(d.chargeMib()).append(" MiB/")
                .append(d.chargeCore()).append("% each (");
        for (ContainerShare c : d.containers()) sb.append(c.name()).append(' ').append(c.memMibPerGpu()).append(" MiB, ");
        return sb.append("reserve ").append(d.reserveMib()).append(" MiB)").toString();
    }
}
