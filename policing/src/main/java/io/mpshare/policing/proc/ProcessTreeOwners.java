package io.mpshare.policing.proc;

import io.mpshare.policing.Owner;
import io.mpshare.policing.PidOwners;

import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * {@link PidOwners} without cgroups, for host mode and test harnesses: processes are registered by the
 * PID of the process that was started for a job ({@code mpshare run -- python train.py}), and every
 * descendant belongs to that job (the parent chain is walked through {@code /proc/<pid>/stat}).
 *
 * <p>The registrant unregisters a root when it exits (it is its parent and is told), so a reused PID
 * never inherits a job. A process that re-parents itself away (double fork, daemonising) leaves its job
 * and shows as unknown: reported, not acted on.
 */
public final class ProcessTreeOwners implements PidOwners {
    private static final int MAX_DEPTH = 64;

    private final ProcFs proc;
    private final Map<Long, Owner> roots = new ConcurrentHashMap<>();

    public ProcessTreeOwners(ProcFs proc) { this.proc = Objects.requireNonNull(proc, "proc"); }

    /** {@code rootPid} and its descendants belong to {@code owner}. */
    public void register(long rootPid, Owner owner) { roots.put(rootPid, Objects.requireNonNull(owner, "owner")); }

    public void unregister(long rootPid) { roots.remove(rootPid); }

    @Override
    public Optional<Owner> ownerOf(long pid) {
        long p = pid;
        for (int depth = 0; depth < MAX_DEPTH && p > 1; depth++) {
            Owner o = roots.get(p);
            if (o != null) return Optional.of(o);
            Optional<Long> parent = proc.parentPid(p);
            if (parent.isEmpty()) return Optional.empty();
            p = parent.get();
        }
        return Optional.empty();
    }
}
