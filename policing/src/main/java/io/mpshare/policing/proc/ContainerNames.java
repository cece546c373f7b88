package io.mpshare.policing.proc;

import java.util.Optional;

/**
 * Container ID → the container's name in its pod. The device plugin backs it with the pods'
 * {@code status.containerStatuses[].containerID} (strip the scheme with {@link CgroupParser#bareId});
 * host mode with its own registry. Empty when unknown (a container that just started may not be in
 * the pod status yet): the policer still acts on the pod, it only cannot name the container.
 */
@FunctionalInterface
public interface ContainerNames {
    /** @param containerId bare 64-hex ID, no {@code containerd://} scheme */
    Optional<String> nameOf(String podUid, String containerId);

    /** A lookup that never knows a name. */
    static ContainerNames none() { return (pod, id) -> Optional.empty(); }
}
