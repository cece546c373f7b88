package io.mpshare.sim;

import io.mpshare.core.model.Gpu;
import io.mpshare.core.model.NodeInventory;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A homogeneous simulated cluster: {@code nodes} nodes of {@code gpusPerNode} GPUs of {@code gpuMib} each.
 * The default is 64 nodes of 8 NVIDIA H200 (143,771 MiB each, as NVML reports it; FACTS.md).
 */
public record ClusterShape(int nodes, int gpusPerNode, long gpuMib, String gpuModel) {
    public static final long H200_MIB = 143_771;
    public static final ClusterShape DEFAULT = new ClusterShape(64, 8, H200_MIB, "NVIDIA H200");

    public ClusterShape {
        if (nodes < 1) throw new IllegalArgumentException("nodes must be >= 1, got " + nodes);
        if (gpusPerNode < 1 || gpusPerNode > 64) throw new IllegalArgumentException("GPUs per node must be 1-64, got " + gpusPerNode);
        if (gpuMib < 1024) throw new IllegalArgumentException("GPU memory must be >= 1024 MiB, got " + gpuMib);
        if (gpuModel == null || gpuModel.isBlank()) gpuModel = "GPU";
    }

    public int gpus() { return nodes * gpusPerNode; }

    /** The inventory of a node named {@code name}: GPUs 0..gpusPerNode-1, all healthy. */
    public NodeInventory inventory(String name) {
        List<Gpu> gpus = new ArrayList<>(gpusPerNode);
        for (int i = 0; i < gpusPerNode; i++) gpus.add(new Gpu(i, "GPU-" + name + "-" + i, gpuModel, gpuMib, true));
        return new NodeInventory(name, gpus);
    }

    public String describe() {
        return String.format(Locale.ROOT, "%d nodes x %d %s (%,d MiB) = %,d GPUs", nodes, gpusPerNode, gpuModel, gpuMib, gpus());
    }
}
