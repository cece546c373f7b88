package io.mpshare.policing;

import java.util.Optional;

/**
 * Maps a host PID to the pod (and container) it belongs to. Kubernetes mode uses
 * {@link io.mpshare.policing.proc.CgroupPidOwners} (reads {@code /proc/<pid>/cgroup}); host mode
 * implements it over its own registry of the processes it started.
 *
 * <p>Called from the policer's thread once per GPU process per sample; must not block for long.
 * Empty means "belongs to no pod": the process is reported as unknown and never acted on.
 */
@FunctionalInterface
public interface PidOwners {
    Optional<Owner> ownerOf(long pid);
}
