package io.mpshare.policing.proc;

import io.mpshare.policing.Owner;
import io.mpshare.policing.PidOwners;

import java.util.Objects;
import java.util.Optional;

/**
 * Kubernetes mode's {@link PidOwners}: the pod UID and container ID from {@code /proc/<pid>/cgroup},
 * the container's name from an injected {@link ContainerNames}. Needs the host PID namespace
 * (hostPID) so NVML's PIDs are visible under the proc root.
 */
public final class CgroupPidOwners implements PidOwners {
    private final ProcFs proc;
    private final ContainerNames names;

    public CgroupPidOwners(ProcFs proc, ContainerNames names) {
        this.proc = Objects.requireNonNull(proc, "proc");
        this.names = Objects.requireNonNull(names, "names");
    }

    @Override
    public Optional<Owner> ownerOf(long pid) {
        CgroupRef ref = proc.cgroup(pid).map(CgroupParser::parse).orElse(CgroupRef.NONE);
        if (ref.podUid().isEmpty()) return Optional.empty();
        String uid = ref.podUid().get();
        String id = ref.containerId().orElse("");
        String name = id.isEmpty() ? "" : names.nameOf(uid, id).orElse("");
        return Optional.of(new Owner(uid, id, name));
    }
}
