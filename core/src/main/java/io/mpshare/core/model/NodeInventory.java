package io.mpshare.core.model;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;

/** The GPUs of one node, sorted by index; GPUs of one node may differ in size and model. */
public record NodeInventory(String node, List<Gpu> gpus) {
    public NodeInventory {
        Objects.requireNonNull(node, "node");
        if (node.isBlank()) throw new IllegalArgumentException("node name is blank");
        var sorted = new ArrayList<>(gpus);
        sorted.sort(Comparator.comparingInt(Gpu::index));
        var seen = new HashSet<Integer>();
        var uuids = new HashSet<String>();
        for (Gpu g : sorted) {
            if (!seen.add(g.index())) throw new IllegalArgumentException("node " + node + " lists GPU index " + g.index() + " twice");
            if (!uuids.add(g.uuid())) throw new IllegalArgumentException("node " + node + " lists GPU UUID " + g.uuid() + " twice");
        }
        gpus = List.copyOf(sorted);
    }

    /** The GPU with NVML index {@code index}, or null. */
    public Gpu gpu(int index) {
        for (Gpu g : gpus) if (g.index() == index) return g;
        return null;
    }

    /** The GPU with UUID {@code uuid}, or null. */
    public Gpu gpuByUuid(String uuid) {
        for (Gpu g : gpus) if (g.uuid().equals(uuid)) return g;
        return null;
    }

    public long totalMib() {
        long t = 0;
        for (Gpu g : gpus) t += g.totalMib();
        return t;
    }
}
