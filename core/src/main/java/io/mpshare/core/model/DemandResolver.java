package io.mpshare.core.model;

import java.util.ArrayList;
import java.util.List;

/**
 * Turns a pod's container requests into the per-GPU charge the ledger books.
 *
 * <p>Rules: the pod's need is max(largest init container, sum of app containers); each GPU-asking
 * container is one MPS client and is charged {@code reserveMib} on each GPU it uses; with
 * {@code gpuCount = N} each container's memory and core request is split evenly over N GPUs, and a
 * request that does not divide evenly is unresolvable (the reason says which container and by how much).
 */
public final class DemandResolver {
    private final long reserveMib;

    public DemandResolver(long reserveMib) {
        if (reserveMib < 0) throw new IllegalArgumentException("context reserve must be >= 0 MiB");
        this.reserveMib = reserveMib;
    }

    public long reserveMib() { return reserveMib; }

    public Resolution resolve(PodInfo pod) {
        try {
            return resolveChecked(pod);
        } catch (ArithmeticException e) {
            return new Resolution.Invalid("pod " + pod.key() + " asks more GPU memory than can be counted: lower its aliyun.com/gpu-mem limits");
        }
    }

    private Resolution resolveChecked(PodInfo pod) {
        if (!pod.asksGpu()) return new Resolution.NoGpu();
        int n = pod.gpuCount();
        if (n < 1) return new Resolution.Invalid("label aliyun.com/gpu-count must be a positive integer, got " + n);
        List<ContainerShare> shares = new ArrayList<>();
        long appSum = 0, initMax = 0, requested = 0, appReq = 0, initReqMax = 0;
        int appCore = 0, initCore = 0;
        for (ContainerRequest c : pod.containers()) {
            if (!c.asksGpu()) continue;
            if (c.memMib() == 0)
                return new Resolution.Invalid("container " + c.name() + " asks aliyun.com/gpu-core.percentage without aliyun.com/gpu-mem: add a gpu-mem limit");
            if (c.memMib() % n != 0)
                return new Resolution.Invalid("container " + c.name() + " asks " + c.memMib() + " MiB, which does not split evenly over "
                        + n + " GPUs (aliyun.com/gpu-count): make it a multiple of " + n);
            if (c.corePercent() % n != 0)
                return new Resolution.Invalid("container " + c.name() + " asks " + c.corePercent() + "% of GPU cores, which does not split evenly over "
                        + n + " GPUs: make it a multiple of " + n);
            long per = c.memMib() / n;
            int core = c.corePercent() / n;
            shares.add(new ContainerShare(c.name(), c.init(), per, core));
            if (c.init()) {
                initMax = Math.max(initMax, Math.addExact(per, reserveMib));
                initCore = Math.max(initCore, core);
                initReqMax = Math.max(initReqMax, c.memMib());
            } else {
                appSum = Math.addExact(appSum, Math.addExact(per, reserveMib));
                appCore += core;
                appReq = Math.addExact(appReq, c.memMib());
            }
        }
        int chargeCore = Math.max(appCore, initCore);
        if (chargeCore > 100)
            return new Resolution.Invalid("containers together ask " + chargeCore + "% of one GPU's cores: at most 100% fits on a GPU");
        requested = Math.max(appReq, initReqMax);
        return new Resolution.Resolved(new GpuDemand(n, Math.max(appSum, initMax), chargeCore, reserveMib, requested, shares, pod.runAsUser()));
    }

    /** Outcome of {@link #resolve}: a demand, no GPU asked at all, or an impossible request with the reason. */
    public sealed interface Resolution {
        record Resolved(GpuDemand demand) implements Resolution {}
        record NoGpu() implements Resolution {}
        record Invalid(String reason) implements Resolution {}
    }
}
