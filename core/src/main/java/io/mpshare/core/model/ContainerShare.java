package io.mpshare.core.model;

import java.util.Objects;

/**
 * What one container gets on each of its pod's GPUs: its request divided by the GPU count.
 * The MPS cap the device plugin sets is {@code memMibPerGpu + reserveMib} on each GPU.
 */
public record ContainerShare(String name, boolean init, long memMibPerGpu, int corePerGpu) {
    public ContainerShare {
        Objects.requireNonNull(name, "name");
        if (memMibPerGpu <= 0) throw new IllegalArgumentException("container " + name + ": share must be > 0 MiB");
        if (corePerGpu < 0 || corePerGpu > 100) throw new IllegalArgumentException("container " + name + ": core must be 0-100");
    }
}
