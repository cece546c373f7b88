package io.mpshare.deviceplugin.allocation;

import io.mpshare.deviceplugin.devices.DeviceIds;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;

/**
 * Chooses device IDs for GetPreferredAllocation: the must-include IDs, then IDs of the preferred GPUs (spread evenly
 * over them), then IDs of the GPU with the most available, so one container's IDs rarely span GPUs needlessly.
 */
public final class Preference {
    private Preference() {}

    /** {@code size} IDs out of {@code available}, {@code mustInclude} first, then {@code preferredGpus}' (UUIDs) evenly. */
    public static List<String> pick(List<String> available, List<String> mustInclude, int size, List<String> preferredGpus) {
        var chosen = new LinkedHashSet<String>(mustInclude);
        Map<String, List<String>> byGpu = new LinkedHashMap<>();
        for (String id : available) {
            if (chosen.contains(id)) continue;
            byGpu.computeIfAbsent(DeviceIds.gpuUuid(id).orElse(""), k -> new ArrayList<>()).add(id);
        }
        if (!preferredGpus.isEmpty()) {
            int per = Math.max(1, (size - chosen.size() + preferredGpus.size() - 1) / preferredGpus.size());
            for (String g : preferredGpus) {
                List<String> ids = byGpu.getOrDefault(g, List.of());
                for (int i = 0; i < per && i < ids.size() && chosen.size() < size; i++) chosen.add(ids.get(i));
            }
        }
        var gpus = new ArrayList<>(byGpu.values());
        gpus.sort(Comparator.comparingInt((List<String> l) -> l.size()).reversed());
        for (List<String> ids : gpus) {
            for (String id : ids) {
                if (chosen.size() >= size) return List.copyOf(chosen);
                chosen.add(id);
            }
        }
        return List.copyOf(chosen);
    }
}
