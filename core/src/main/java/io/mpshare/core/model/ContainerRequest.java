package io.mpshare.core.model;

import java.util.Objects;

/**
 * What one container asks: GPU memory (already converted to MiB) and a share of the GPU's SMs.
 *
 * @param init        true for an init container (kubelet starts it before the app containers, in spec order)
 * @param memMib      {@code aliyun.com/gpu-mem} in MiB; 0 when not asked
 * @param corePercent {@code aliyun.com/gpu-core.percentage}; 0 when not asked
 * @param sidecar     an init container with {@code restartPolicy: Always} (a native sidecar): it keeps running beside
 *                    the app containers, so {@link DemandResolver} counts it with them; implies {@code init}
 */
public record ContainerRequest(String name, boolean init, long memMib, int corePercent, boolean sidecar) {
    public ContainerRequest {
        Objects.requireNonNull(name, "name");
        if (memMib < 0) throw new IllegalArgumentException("container " + name + ": gpu memory must be >= 0, got " + memMib + " MiB");
        if (corePercent < 0 || corePercent > 100)
            throw new IllegalArgumentException("container " + name + ": gpu-core.percentage must be 0-100, got " + corePercent);
        if (sidecar && !init) throw new IllegalArgumentException("container " + name + ": only an init container can be a sidecar");
    }

    public ContainerRequest(String name, boolean init, long memMib, int corePercent) { this(name, init, memMib, corePercent, false); }

    public static ContainerRequest app(String name, long memMib, int corePercent) { return new ContainerRequest(name, false, memMib, corePercent); }

    public static ContainerRequest init(String name, long memMib, int corePercent) { return new ContainerRequest(name, true, memMib, corePercent); }

    /** A native sidecar: an init container with {@code restartPolicy: Always}. */
    public static ContainerRequest sidecar(String name, long memMib, int corePercent) { return new ContainerRequest(name, true, memMib, corePercent, true); }

    public boolean asksGpu() { return memMib > 0 || corePercent > 0; }
}
