package io.mpshare.core.model;

import io.mpshare.core.MemoryUnit;
import io.mpshare.core.Names;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Turns a pod's container requests into the per-GPU charge the ledger books.
 *
 * <p>Rules: each GPU-asking container is one MPS client and is charged the context reserve on each GPU it
 * uses (the resolver's default, or the pod's {@link Names#ANN_CONTEXT_RESERVE} within
 * [{@link Names#MIN_CONTEXT_RESERVE_MIB}, {@link Names#MAX_CONTEXT_RESERVE_MIB}]); the pod's need is its
 * {@link PodPeak}: max(init containers with the sidecars started before them, app containers + sidecars).
 * With {@code gpuCount = N} each container's memory and core request is split evenly over N GPUs in
 * whole units of the request ({@code aliyun.com/gpu-mem} GiB by default: 15 GiB over 2 GPUs is refused,
 * as ACK does); a request that does not split is unresolvable, and the reason says what to ask instead.
 */
public final class DemandResolver {
    private final long reserveMib;
    private final MemoryUnit unit;

    /** Splits in whole MiB (host mode, the simulator). */
    public DemandResolver(long reserveMib) { this(reserveMib, MemoryUnit.MIB); }

    /** @param unit the unit of {@code aliyun.com/gpu-mem}: a share per GPU must be a whole number of it */
    public DemandResolver(long reserveMib, MemoryUnit unit) {
        if (reserveMib < 0) throw new IllegalArgumentException("context reserve must be >= 0 MiB");
        this.reserveMib = reserveMib;
        this.unit = Objects.requireNonNull(unit, "unit");
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
        long reserve = pod.contextReserveMib().orElse(reserveMib);
        if (pod.contextReserveMib().isPresent() && (reserve < Names.MIN_CONTEXT_RESERVE_MIB || reserve > Names.MAX_CONTEXT_RESERVE_MIB))
            return new Resolution.Invalid("annotation " + Names.ANN_CONTEXT_RESERVE + " is " + reserve + ": give " + Names.MIN_CONTEXT_RESERVE_MIB
                    + " to " + Names.MAX_CONTEXT_RESERVE_MIB + " MiB, or remove it for the default " + reserveMib);
        List<ContainerShare> shares = new ArrayList<>();
        for (ContainerRequest c : pod.containers()) {
            if (!c.asksGpu()) continue;
            if (c.memMib() == 0)
                return new Resolution.Invalid("container " + c.name() + " asks aliyun.com/gpu-core.percentage without aliyun.com/gpu-mem: add a gpu-mem limit");
            String split = splitError(c, n);
            if (split != null) return new Resolution.Invalid(split);
            shares.add(new ContainerShare(c.name(), c.init(), c.memMib() / n, c.corePercent() / n, c.sidecar()));
        }
        int chargeCore = PodPeak.core(shares);
        if (chargeCore > 100)
            return new Resolution.Invalid("containers together ask " + chargeCore + "% of one GPU's cores: at most 100% fits on a GPU");
        long requested = Math.multiplyExact(PodPeak.mib(shares, 0), n);
        return new Resolution.Resolved(new GpuDemand(n, PodPeak.mib(shares, reserve), chargeCore, reserve, requested, shares, pod.runAsUser()));
    }

    /** Why {@code c} does not split into whole units over {@code n} GPUs, or null when it does. */
    private String splitError(ContainerRequest c, int n) {
        long step = Math.multiplyExact(unit.mibPerUnit(), n);
        if (c.memMib() % step != 0) {
            long asked = c.memMib() % unit.mibPerUnit() == 0 ? unit.fromMib(c.memMib()) : c.memMib();
            String sym = c.memMib() % unit.mibPerUnit() == 0 ? unit.symbol() : "MiB";
            long down = asked / n * n, up = down + n;
            return "container " + c.name() + " asks " + asked + " " + sym + ", which does not split evenly over " + n + " GPUs in whole "
                    + unit.symbol() + " (aliyun.com/gpu-count): ask a multiple of " + n + (down > 0 ? " such as " + down + " or " + up : " such as " + up);
        }
        if (c.corePercent() % n != 0)
            return "container " + c.name() + " asks " + c.corePercent() + "% of GPU cores, which does not split evenly over "
                    + n + " GPUs: make it a multiple of " + n;
        return null;
    }

    /** Outcome of {@link #resolve}: a demand, no GPU asked at all, or an impossible request with the reason. */
    public sealed interface Resolution {
        record Resolved(GpuDemand demand) implements Resolution {}
        record NoGpu() implements Resolution {}
        record Invalid(String reason) implements Resolution {}
    }
}
