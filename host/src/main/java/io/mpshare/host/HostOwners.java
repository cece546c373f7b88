package io.mpshare.host;

import io.mpshare.host.state.ProcessTable;
import io.mpshare.policing.Owner;
import io.mpshare.policing.PidOwners;
import io.mpshare.policing.proc.ProcessTreeOwners;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Host mode's PID owners: the jobs' process trees ({@link ProcessTreeOwners}), and — when unmanaged processes are
 * policed — every other live GPU process belongs to {@link #UNMANAGED}, a "job" with no allocation. The policer then
 * treats a CUDA process started outside {@code mpshare run} on a shared GPU as rogue (acted on by policy) instead of
 * only reporting it: on a host without containers nothing else stops someone running uncapped beside the jobs.
 *
 * <p>Two guards keep it from ever hitting an innocent process (GPU run, docs/gpu-results.md: NVML still listed a job's
 * process for a moment after it had exited and its job was freed):
 * a process that is gone (or a zombie) is never called unmanaged, only unknown (reported); and the root PID of a job
 * that just ended stays unknown for {@code grace}, so a PID reused meanwhile is not taken for a rogue.
 * (The MPS server is recognised by its PID before owners are asked, as the supervisor reported it or as a child of the
 * supervisor's daemon ({@link HostMpsServers}), and is never judged; a process that only calls itself
 * {@code nvidia-cuda-mps-server} is unmanaged like any other.)
 */
public final class HostOwners implements PidOwners {
    public static final String UNMANAGED = "unmanaged";

    private final ProcessTreeOwners jobs;
    private final ProcessTable procs;
    private final boolean policeUnmanaged;
    private final InstantSource clock;
    private final Duration grace;
    private final Map<Long, Instant> ended = new ConcurrentHashMap<>();

    public HostOwners(ProcessTreeOwners jobs, ProcessTable procs, boolean policeUnmanaged, InstantSource clock, Duration grace) {
        this.jobs = jobs;
        this.procs = procs;
        this.policeUnmanaged = policeUnmanaged;
        this.clock = clock;
        this.grace = grace;
    }

    /** {@code rootPid} and its descendants belong to job {@code id}. */
    public void register(long rootPid, String id) {
        ended.remove(rootPid);
        jobs.register(rootPid, Owner.pod(id));
    }

    /** The job's root process ended or was replaced: its PID is unknown (not unmanaged) for the grace period. */
    public void unregister(long rootPid) {
        jobs.unregister(rootPid);
        ended.put(rootPid, clock.instant());
    }

    @Override public Optional<Owner> ownerOf(long pid) {
        Optional<Owner> o = jobs.ownerOf(pid);
        if (o.isPresent() || !policeUnmanaged) return o;
        Instant gone = ended.get(pid);
        if (gone != null) {
            if (clock.instant().isBefore(gone.plus(grace))) return Optional.empty();
            ended.remove(pid);
        }
        return procs.startTicks(pid).isPresent() ? Optional.of(Owner.pod(UNMANAGED)) : Optional.empty();
    }
}
