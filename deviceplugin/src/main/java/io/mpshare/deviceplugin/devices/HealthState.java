package io.mpshare.deviceplugin.devices;

import java.util.Set;

/**
 * What the health monitor last saw: whether the MPS control daemon answers, which GPUs (by NVML index) had a critical
 * Xid recently, and which GPUs have a faulted MPS fault domain that closes them (only where the agent is told to:
 * {@code --domain-fault-health gpu}). A GPU's devices are Healthy only when the daemon is up and the GPU is in neither set.
 */
public record HealthState(boolean daemonUp, Set<Integer> xidGpus, Set<Integer> faultedGpus, String reason) {
    public HealthState {
        xidGpus = Set.copyOf(xidGpus);
        faultedGpus = Set.copyOf(faultedGpus);
        reason = reason == null ? "" : reason;
    }

    public HealthState(boolean daemonUp, Set<Integer> xidGpus, String reason) { this(daemonUp, xidGpus, Set.of(), reason); }

    public static HealthState healthy() { return new HealthState(true, Set.of(), ""); }

    public boolean gpuHealthy(int index) { return daemonUp && !xidGpus.contains(index) && !faultedGpus.contains(index); }
}
