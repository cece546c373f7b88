package io.mpshare.policing.proc;

import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A thread-safe {@link ContainerNames} its owner feeds: the device plugin's pod informer calls {@link #put}
 * with each pod status's {@code containerStatuses[].containerID} (with its scheme: {@code containerd://...})
 * and name, and {@link #forget} when the pod is gone.
 */
public final class ContainerIndex implements ContainerNames {
    private final Map<String, Map<String, String>> byPod = new ConcurrentHashMap<>();

    public void put(String podUid, String statusContainerId, String name) {
        String id = CgroupParser.bareId(statusContainerId);
        if (id.isEmpty()) return; // not started yet: no ID
        byPod.computeIfAbsent(podUid, k -> new ConcurrentHashMap<>()).put(id, name);
    }

    public void forget(String podUid) { byPod.remove(podUid); }

    @Override
    public Optional<String> nameOf(String podUid, String containerId) {
        return Optional.ofNullable(byPod.getOrDefault(podUid, Map.of()).get(containerId));
    }
}
