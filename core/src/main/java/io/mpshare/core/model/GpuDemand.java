package io.mpshare.core.model;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.OptionalLong;

/**
 * A pod's resolved need, as the ledger charges it on each of {@code gpuCount} distinct GPUs of one node.
 *
 * <p>{@code chargeMib} = max(largest init container, sum of app containers), each container counted as
 * its share plus {@code reserveMib} for its CUDA context. {@code chargeCore} likewise for SM share.
 *
 * @param requestedMib the pod's need without reserves, over all its GPUs (what the user asked)
 * @param containers   each GPU-asking container's share per GPU; kept app containers first, then init
 *                     containers (each group in spec order), so equal demands compare equal after a rebuild
 * @param domain       the MPS daemon that will serve the pod on its GPUs ({@link ServingDomain}): whether the
 *                     one-UID-per-daemon rule judges it, and which GPUs already run its daemon. A pod of several GPUs
 *                     is always the node daemon's (one pipe directory per container, one GPU per domain daemon)
 */
public record GpuDemand(int gpuCount, long chargeMib, int chargeCore, long reserveMib,
                        long requestedMib, List<ContainerShare> containers, OptionalLong runAsUser, ServingDomain domain) {
    /** A demand served by the node daemon: what every demand was before fault domains, and what a caller without namespaces gets. */
    public GpuDemand(int gpuCount, long chargeMib, int chargeCore, long reserveMib,
                     long requestedMib, List<ContainerShare> containers, OptionalLong runAsUser) {
        this(gpuCount, chargeMib, chargeCore, reserveMib, requestedMib, containers, runAsUser, ServingDomain.NODE_DAEMON);
    }

    public GpuDemand {
        if (gpuCount < 1) throw new IllegalArgumentException("gpuCount must be >= 1");
        if (chargeMib <= 0) throw new IllegalArgumentException("chargeMib must be > 0");
        if (chargeCore < 0 || chargeCore > 100) throw new IllegalArgumentException("chargeCore must be 0-100");
        if (reserveMib < 0) throw new IllegalArgumentException("reserveMib must be >= 0");
        containers = canonical(containers);
        Objects.requireNonNull(domain, "domain");
        if (gpuCount > 1) domain = ServingDomain.NODE_DAEMON;
    }

    /** The same demand served by {@code d} (the node daemon's when the demand takes several GPUs). */
    public GpuDemand withDomain(ServingDomain d) {
        return d.equals(domain) ? this : new GpuDemand(gpuCount, chargeMib, chargeCore, reserveMib, requestedMib, containers, runAsUser, d);
    }

    /** Whether the one-UID-per-daemon rule judges this demand: a known UID, served by the node daemon. */
    public boolean underUidRule() { return runAsUser.isPresent() && domain.onNodeDaemon(); }

    /** App containers first, then init containers, each in the order given: the order the annotation codec writes. */
    private static List<ContainerShare> canonical(List<ContainerShare> cs) {
        boolean ordered = true;
        boolean seenInit = false;
        for (ContainerShare c : cs) {
            if (c.init()) seenInit = true;
            else if (seenInit) { ordered = false; break; }
        }
        if (ordered) return List.copyOf(cs);
        var out = new ArrayList<ContainerShare>(cs.size());
        for (ContainerShare c : cs) if (!c.init()) out.add(c);
        for (ContainerShare c : cs) if (c.init()) out.add(c);
        return List.copyOf(out);
    }

    /** A single-container demand, handy for simulators and benchmarks. */
    public static GpuDemand simple(long memMib, int core, int gpuCount, long reserveMib) {
        long perGpu = memMib / gpuCount;
        return new GpuDemand(gpuCount, perGpu + reserveMib, core / gpuCount, reserveMib, memMib,
                List.of(new ContainerShare("main", false, perGpu, core / gpuCount)), OptionalLong.empty());
    }

    /** The user's own request on one GPU, without reserves. */
    public long requestedMibPerGpu() { return requestedMib / gpuCount; }
}
