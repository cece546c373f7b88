package io.mpshare.policing;

import java.util.Objects;

/**
 * Who a GPU process belongs to: a pod (by UID) and, when known, its container.
 *
 * <p>In Kubernetes mode {@code podUid} is the pod's metadata.uid as found in the process's cgroup path;
 * in host mode it is whatever key the host registry gives its jobs (the same key its allocations carry
 * in {@code Allocation.podUid}).
 *
 * @param containerId   the runtime's container ID (64 hex) without scheme, or "" when unknown
 * @param containerName the container's name in the pod spec, or "" when it could not be looked up
 */
public record Owner(String podUid, String containerId, String containerName) {
    public Owner {
        Objects.requireNonNull(podUid, "podUid");
        if (podUid.isBlank()) throw new IllegalArgumentException("podUid is blank");
        containerId = containerId == null ? "" : containerId;
        containerName = containerName == null ? "" : containerName;
    }

    public static Owner pod(String podUid) { return new Owner(podUid, "", ""); }
}
