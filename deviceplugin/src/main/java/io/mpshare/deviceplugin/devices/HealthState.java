package io.mpshare.deviceplugin.devices;

import java.util.Set;

/**
 * What the health monitor last saw: whether the MPS control daemon answers, and which GPUs (by NVML index)
 * had a critical Xid recently. A GPU's devices are Healthy only when the daemon is up and the GPU is not listed.
 */
public record HealthState(boolean daemonUp, Set<Integer> xidGpus, String reason) {
    public HealthState {
        xidGpus = Set.copyOf(xidGpus);
        reason = reason == null ? "" : reason;
    }

    public static HealthState healthy() { return new HealthState(true, Set.of(), ""); }

    public boolean gpuHealthy(int index) { return daemonUp && !xidGpus.contains(index); }
}
