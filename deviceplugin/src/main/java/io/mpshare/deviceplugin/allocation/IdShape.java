package io.mpshare.deviceplugin.allocation;

import io.mpshare.core.model.Gpu;
import io.mpshare.core.model.NodeInventory;
import io.mpshare.deviceplugin.devices.DeviceIds;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.TreeMap;

/**
 * What a set of device IDs kubelet chose stands for: the GPUs they are on (node index order) and how many units on
 * each. kubelet hands each ID to one container at a time, so a shape is exactly what that container may use: the
 * Allocate answer is built from it, never from a guessed pod.
 *
 * @param gpuIndices NVML indices, ascending, distinct
 * @param gpuUuids   the same GPUs' UUIDs
 * @param units      units of {@code aliyun.com/gpu-mem} on each of those GPUs, same order
 */
public record IdShape(List<Integer> gpuIndices, List<String> gpuUuids, List<Long> units) {
    public IdShape {
        gpuIndices = List.copyOf(gpuIndices);
        gpuUuids = List.copyOf(gpuUuids);
        units = List.copyOf(units);
        if (gpuIndices.isEmpty()) throw new IllegalArgumentException("a device ID shape needs at least one GPU");
        if (gpuUuids.size() != gpuIndices.size() || units.size() != gpuIndices.size())
            throw new IllegalArgumentException("GPU indices, UUIDs and units differ in number");
    }

    /** Outcome of reading IDs: a shape, or why the IDs cannot be ours. */
    public sealed interface Read {
        record Shape(IdShape shape) implements Read {}
        record Bad(String reason) implements Read {}
    }

    public static Read of(Collection<String> ids, NodeInventory inv) {
        if (ids.isEmpty()) return new Read.Bad("kubelet sent no device IDs");
        var byIndex = new TreeMap<Integer, Long>();
        var uuids = new TreeMap<Integer, String>();
        for (String id : ids) {
            String uuid = DeviceIds.gpuUuid(id).orElse(null);
            Gpu g = uuid == null ? null : inv.gpuByUuid(uuid);
            if (g == null) return new Read.Bad("device ID " + id + " names no GPU of this node (are two device plugins serving the same resource?)");
            byIndex.merge(g.index(), 1L, Long::sum);
            uuids.put(g.index(), g.uuid());
        }
        return new Read.Shape(new IdShape(new ArrayList<>(byIndex.keySet()), new ArrayList<>(uuids.values()), new ArrayList<>(byIndex.values())));
    }

    public long total() {
        long t = 0;
        for (long u : units) t += u;
        return t;
    }

    /** Whether these IDs lie exactly as a booking on {@code gpus} with {@code perGpu} units on each would. */
    public boolean matches(List<Integer> gpus, long perGpu) {
        if (!gpuIndices.equals(gpus)) return false;
        for (long u : units) if (u != perGpu) return false;
        return true;
    }

    @Override public String toString() {
        var sb = new StringBuilder();
        for (int i = 0; i < gpuIndices.size(); i++) {
            if (i > 0) sb.append(", ");
            sb.append(units.get(i)).append(" on GPU ").append(gpuIndices.get(i));
        }
        return sb.toString();
    }
}
