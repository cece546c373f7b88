package io.mpshare.kube;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceRequirements;
import io.mpshare.core.Names;
import io.mpshare.core.model.PodPeak;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.List;
import java.util.Map;

/**
 * A pod's effective host request, as kube-scheduler's NodeResourcesFit computes it
 * ({@code resourcehelper.PodRequests}): per resource
 * {@code max(max over init containers i of (sidecars declared before i) + i, sum of app containers + all sidecars)}
 * plus {@code spec.overhead}, the rule {@link PodPeak} applies to GPU memory (KEP-753).
 * A container's request is {@code resources.requests}, or its {@code limits} where the request is absent (what
 * the API server's defaulting writes). Absent everywhere: 0.
 *
 * @param cpuMilli  thousandths of a core, rounded up (Quantity's MilliValue)
 * @param memoryMib MiB, rounded up
 */
public record HostAsk(long cpuMilli, long memoryMib) {
    public static final HostAsk NONE = new HostAsk(0, 0);
    private static final BigDecimal MIB = BigDecimal.valueOf(1L << 20), THOUSAND = BigDecimal.valueOf(1000);

    public HostAsk {
        if (cpuMilli < 0 || memoryMib < 0) throw new IllegalArgumentException("host ask must be >= 0, got cpu=" + cpuMilli + "m memory=" + memoryMib + "Mi");
    }

    public static HostAsk of(Pod pod) {
        PodSpec spec = pod.getSpec();
        if (spec == null) return NONE;
        return new HostAsk(peak(spec, Names.RESOURCE_CPU, true), peak(spec, Names.RESOURCE_MEMORY, false));
    }

    private static long peak(PodSpec spec, String resource, boolean cpu) {
        long apps = 0, sidecars = 0, initPhase = 0;
        for (Container c : list(spec.getContainers())) apps = Math.addExact(apps, request(c, resource, cpu));
        for (Container c : list(spec.getInitContainers())) {
            long v = request(c, resource, cpu);
            if (Names.RESTART_POLICY_ALWAYS.equals(c.getRestartPolicy())) {
                sidecars = Math.addExact(sidecars, v);
                initPhase = Math.max(initPhase, sidecars);
            } else initPhase = Math.max(initPhase, Math.addExact(sidecars, v));
        }
        long overhead = amount(spec.getOverhead(), resource, cpu, true);
        return Math.addExact(Math.max(initPhase, Math.addExact(apps, sidecars)), overhead);
    }

    private static <T> List<T> list(List<T> l) { return l == null ? List.of() : l; }

    private static long request(Container c, String resource, boolean cpu) {
        ResourceRequirements r = c.getResources();
        if (r == null) return 0;
        Map<String, Quantity> req = r.getRequests();
        if (req != null && req.get(resource) != null) return amount(req, resource, cpu, true);
        return amount(r.getLimits(), resource, cpu, true);
    }

    /**
     * {@code q[resource]} in thousandths of a core (cpu) or MiB (memory), rounded up ({@code up}) or down; 0 when
     * absent or unreadable (the API server accepts only valid quantities, so that is a hand-made object). Also what
     * a node's {@code status.allocatable} is read with.
     */
    public static long amount(Map<String, Quantity> q, String resource, boolean cpu, boolean up) {
        Quantity v = q == null ? null : q.get(resource);
        if (v == null) return 0;
        try {
            BigDecimal base = v.getNumericalAmount(); // cores, or bytes
            RoundingMode mode = up ? RoundingMode.CEILING : RoundingMode.FLOOR;
            BigDecimal scaled = cpu ? base.multiply(THOUSAND).setScale(0, mode) : base.divide(MIB, 0, mode);
            if (scaled.signum() < 0) return 0;
            return scaled.compareTo(BigDecimal.valueOf(Long.MAX_VALUE / 4)) > 0 ? Long.MAX_VALUE / 4 : scaled.longValueExact();
        } catch (RuntimeException e) {
            return 0;
        }
    }
}
