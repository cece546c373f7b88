package io.mpshare.core.model;

import java.util.List;
import java.util.Objects;
import java.util.OptionalLong;

/**
 * The pod as the core sees it; adapters build it from a v1.Pod.
 *
 * @param uid               Kubernetes UID (empty outside Kubernetes)
 * @param containers        app and init containers with what they ask, init containers in spec order
 * @param gpuCount          value of the {@code aliyun.com/gpu-count} label, 1 when absent
 * @param runAsUser         the pod's known Linux UID, for the optional one-UID-per-daemon rule
 * @param contextReserveMib the pod's {@code mpshare.io/context-reserve-mib} annotation, empty when not set
 *                          ({@link DemandResolver} then charges its default and checks the bounds)
 */
public record PodInfo(PodKey key, String uid, List<ContainerRequest> containers, int gpuCount, OptionalLong runAsUser,
                      OptionalLong contextReserveMib) {
    public PodInfo {
        Objects.requireNonNull(key, "key");
        uid = uid == null ? "" : uid;
        containers = List.copyOf(containers);
        Objects.requireNonNull(runAsUser, "runAsUser");
        Objects.requireNonNull(contextReserveMib, "contextReserveMib");
    }

    public PodInfo(PodKey key, String uid, List<ContainerRequest> containers, int gpuCount, OptionalLong runAsUser) {
        this(key, uid, containers, gpuCount, runAsUser, OptionalLong.empty());
    }

    public PodInfo(PodKey key, List<ContainerRequest> containers) { this(key, "", containers, 1, OptionalLong.empty()); }

    public boolean asksGpu() {
        for (ContainerRequest c : containers) if (c.asksGpu()) return true;
        return false;
    }
}
