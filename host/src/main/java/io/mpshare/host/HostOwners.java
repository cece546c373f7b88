package io.mpshare.host;

import io.mpshare.policing.Owner;
import io.mpshare.policing.PidOwners;

import java.util.Optional;

/**
 * Host mode's PID owners: the jobs' process trees, and — when unmanaged processes are policed — every other GPU
 * process belongs to {@link #UNMANAGED}, a "job" with no allocation. The policer then treats a process started
 * outside {@code mpshare run} on a shared GPU as rogue (acted on by policy) instead of only reporting it, which is
 * what a host without containers needs: nothing else stops someone from running CUDA uncapped beside the jobs.
 * (The MPS server is recognised before owners are asked and is never judged.)
 */
public final class HostOwners implements PidOwners {
    public static final String UNMANAGED = "unmanaged";

    private final PidOwners jobs;
    private final boolean policeUnmanaged;

    public HostOwners(PidOwners jobs, boolean policeUnmanaged) {
        this.jobs = jobs;
        this.policeUnmanaged = policeUnmanaged;
    }

    @Override public Optional<Owner> ownerOf(long pid) {
        Optional<Owner> o = jobs.ownerOf(pid);
        return o.isPresent() || !policeUnmanaged ? o : Optional.of(Owner.pod(UNMANAGED));
    }
}
