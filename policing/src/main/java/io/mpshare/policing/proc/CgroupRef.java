package io.mpshare.policing.proc;

import java.util.Objects;
import java.util.Optional;

/**
 * What a cgroup path tells about a process: the pod UID (normalised to dashes) and the container ID,
 * each empty when the path does not carry it (a host process; a plain Docker container has an ID but no pod).
 *
 * @param runtime "containerd", "crio", "docker", or "" when the path does not say (cgroupfs driver)
 */
public record CgroupRef(Optional<String> podUid, Optional<String> containerId, String runtime) {
    public CgroupRef {
        Objects.requireNonNull(podUid, "podUid");
        Objects.requireNonNull(containerId, "containerId");
        Objects.requireNonNull(runtime, "runtime");
    }

    public static final CgroupRef NONE = new CgroupRef(Optional.empty(), Optional.empty(), "");

    public boolean isPod() { return podUid.isPresent(); }
}
