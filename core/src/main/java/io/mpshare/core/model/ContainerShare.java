package io.mpshare.core.model;

import java.util.Objects;

/**
 * What one container gets on each of its pod's GPUs: its request divided by the GPU count.
 * The MPS cap the device plugin sets is {@code memMibPerGpu + reserveMib} on each GPU.
 *
 * @param init    an init container (kubelet admits it before the app containers, in spec order)
 * @param sidecar an init container with {@code restartPolicy: Always}: it runs beside the app containers
 */
public record ContainerShare(String name, boolean init, long memMibPerGpu, int corePerGpu, boolean sidecar) {
    public ContainerShare {
        Objects.requireNonNull(name, "name");
        if (memMibPerGpu <= 0) throw new IllegalArgumentException("container " + name + ": share must be > 0 MiB");
        if (corePerGpu < 0 || corePerGpu > 100) throw new IllegalArgumentException("container " + name + ": core must be 0-100");
        if (sidecar && !init) throw new IllegalArgumentException("container " + name + ": only an init container can be a sidecar");
    }

    public ContainerShare(String name, boolean init, long memMibPerGpu, int corePerGpu) { this(name, init, memMibPerGpu, corePerGpu, false); }

    /** Runs while the app containers run: an app container or a sidecar. */
    public boolean runsWithApps() { return !init || sidecar; }
}
