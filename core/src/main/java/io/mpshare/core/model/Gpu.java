package io.mpshare.core.model;

import java.util.Objects;

/**
 * One physical GPU of a node, as NVML reports it.
 *
 * @param index    NVML index on its node (0-based); the ledger's key for the GPU
 * @param uuid     NVML UUID ("GPU-..."), what {@code NVIDIA_VISIBLE_DEVICES} names
 * @param model    model name, e.g. "NVIDIA H200"
 * @param totalMib total memory in MiB
 * @param healthy  false after a critical Xid or while the node's MPS daemon is down
 */
public record Gpu(int index, String uuid, String model, long totalMib, boolean healthy) {
    public Gpu {
        if (index < 0) throw new IllegalArgumentException("GPU index must be >= 0, got " + index);
        Objects.requireNonNull(uuid, "uuid");
        Objects.requireNonNull(model, "model");
        if (uuid.isBlank()) throw new IllegalArgumentException("GPU " + index + " has a blank UUID");
        if (totalMib <= 0) throw new IllegalArgumentException("GPU " + index + " total memory must be > 0 MiB, got " + totalMib);
    }

    public Gpu withHealthy(boolean h) { return h == healthy ? this : new Gpu(index, uuid, model, totalMib, h); }
}
