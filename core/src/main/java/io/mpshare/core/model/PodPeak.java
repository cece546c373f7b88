package io.mpshare.core.model;

import java.util.List;
import java.util.function.ToLongFunction;

/**
 * The most a pod holds at once on one GPU, by Kubernetes' rule for pods with native sidecars (KEP-753,
 * "Resources calculation for scheduling and pod admission"):
 * <pre>
 * init phase  = max over init containers i of (sum of sidecars declared before i) + i   (a sidecar counts itself once)
 * app phase   = sum of app containers + sum of all sidecars
 * peak        = max(init phase, app phase)
 * </pre>
 * Regular init containers run one at a time and are gone when the app containers start; sidecars
 * ({@code restartPolicy: Always}) start in init order and keep running beside the app containers.
 * Each container counts its value plus {@code extra} (the CUDA context reserve for memory, 0 for cores).
 */
public final class PodPeak {
    private PodPeak() {}

    /**
     * @param shares init containers in spec order (app containers anywhere in the list)
     * @param value  what one container holds (MiB or core per GPU)
     * @param extra  added to each container's value (its context reserve)
     */
    public static long of(List<ContainerShare> shares, ToLongFunction<ContainerShare> value, long extra) {
        long sidecars = 0, initPhase = 0, apps = 0;
        for (ContainerShare s : shares) {
            long v = Math.addExact(value.applyAsLong(s), extra);
            if (!s.init()) apps = Math.addExact(apps, v);
            else if (s.sidecar()) {
                sidecars = Math.addExact(sidecars, v);
                initPhase = Math.max(initPhase, sidecars);
            } else initPhase = Math.max(initPhase, Math.addExact(sidecars, v));
        }
        return Math.max(initPhase, Math.addExact(apps, sidecars));
    }

    /** MiB per GPU with {@code reserveMib} for each container. */
    public static long mib(List<ContainerShare> shares, long reserveMib) { return of(shares, ContainerShare::memMibPerGpu, reserveMib); }

    /** Core percent per GPU. */
    public static int core(List<ContainerShare> shares) { return (int) Math.min(Integer.MAX_VALUE, of(shares, ContainerShare::corePerGpu, 0)); }
}
