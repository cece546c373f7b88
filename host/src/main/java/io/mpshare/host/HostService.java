package io.mpshare.host;

import io.mpshare.core.isolation.MpsLimits;
import io.mpshare.core.ledger.Allocation;
import io.mpshare.core.ledger.AssumeResult;
import io.mpshare.core.ledger.Ledger;
import io.mpshare.core.ledger.NodeState;
import io.mpshare.core.ledger.Phase;
import io.mpshare.core.model.ContainerRequest;
import io.mpshare.core.model.DemandResolver;
import io.mpshare.core.model.Gpu;
import io.mpshare.core.model.GpuDemand;
import io.mpshare.core.model.NodeInventory;
import io.mpshare.core.model.PodInfo;
import io.mpshare.core.model.PodKey;
import io.mpshare.core.policy.BinpackPolicy;
import io.mpshare.core.policy.PlacementEngine;
import io.mpshare.host.Answer.Code;
import io.mpshare.host.Answer.Refused;
import io.mpshare.host.state.JobRecord;
import io.mpshare.host.state.ProcessTable;
import io.mpshare.host.state.StateStore;
import io.mpshare.policing.LiveNodeView;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The host's book of jobs: the same {@link Ledger} and {@link BinpackPolicy} (through {@link PlacementEngine}) as the
 * cluster, with the host as its one node.
 *
 * <h2>Implementation notes</h2>
 * <ul>
 *   <li><b>Lifecycle of a job.</b> {@link #allocate} books it ({@code ASSIGNED} at once: there is no binder on a host)
 *       and watches the requesting client's PID; {@link #started} moves the watch to the command's PID;
 *       {@link #release} (the client says the command ended) or {@link #reap} (the watched process is gone,
 *       however it ended: {@code kill -9} of the command or of the client) frees it.</li>
 *   <li><b>Identity.</b> A watched process is its PID <em>and</em> its start time, so a PID reused after a crash or a
 *       restart is never taken for the job.</li>
 *   <li><b>Durability.</b> Every change is saved (atomically, {@link StateStore}) before the answer goes out;
 *       {@link #restore} keeps the jobs whose process still runs and frees the others.</li>
 *   <li><b>Safety.</b> No job is granted while the MPS daemon is not ready ({@link DaemonGate}): a CUDA process
 *       without the daemon runs with no cap. Before a grant, each of its GPUs' server ceiling is set to the largest
 *       cap booked there (whole GiB, rounded up; 1 GiB on a GPU with no job: {@link MpsLimits}), so a client that raises
 *       its own env cap cannot pass that (FACTS.md); the policer does the rest.</li>
 *   <li><b>Concurrency.</b> Every public method is {@code synchronized}: requests are few (one per job start and
 *       end) and each saves the file anyway. The ledger's snapshots stay lock-free for readers.</li>
 * </ul>
 */
public final class HostService {
    public static final String NODE = "host";
    public static final String NAMESPACE = "host";
    public static final String ENV_CUDA_VISIBLE_DEVICES = "CUDA_VISIBLE_DEVICES";
    public static final String ENV_JOB = "MPSHARE_JOB";
    public static final String ENV_GPU_INDEX = "MPSHARE_GPU_INDEX";
    public static final String ENV_MEM_MIB = "MPSHARE_GPU_MEM_MIB";
    public static final String ENV_RESERVE_MIB = "MPSHARE_CONTEXT_RESERVE_MIB";

    private final NodeInventory inventory;
    private final Ledger ledger;
    private final PlacementEngine engine;
    private final DemandResolver resolver;
    private final DaemonGate gate;
    private final StateStore store;
    private final ProcessTable procs;
    private final LiveNodeView view;
    private final HostOwners owners;
    private final InstantSource clock;
    private final Map<String, JobRecord> jobs = new LinkedHashMap<>();
    private final Map<Integer, Long> ceilings = new TreeMap<>();
    private final AtomicLong seq = new AtomicLong();

    public HostService(List<Gpu> gpus, long reserveMib, DaemonGate gate, StateStore store, ProcessTable procs,
                       LiveNodeView view, HostOwners owners, InstantSource clock) {
        this.inventory = new NodeInventory(NODE, gpus);
        this.ledger = new Ledger(clock, Duration.ofMinutes(5));
        this.ledger.upsertNode(inventory);
        this.engine = new PlacementEngine(ledger, new BinpackPolicy());
        this.resolver = new DemandResolver(reserveMib);
        this.gate = gate;
        this.store = store;
        this.procs = procs;
        this.view = view;
        this.owners = owners;
        this.clock = clock;
    }

    public NodeInventory inventory() { return inventory; }

    public NodeState node() { return ledger.node(NODE); }

    public DaemonGate gate() { return gate; }

    public synchronized List<JobRecord> jobs() { return List.copyOf(jobs.values()); }

    public synchronized Optional<JobRecord> job(String id) { return Optional.ofNullable(jobs.get(id)); }

    /** Books a job or says why not. */
    public synchronized Answer allocate(AllocationRequest r) {
        if (r.memMib() <= 0) return bad("--gpu-mem must be more than 0");
        if (r.core() < 0 || r.core() > 100) return bad("--gpu-core must be 0-100, got " + r.core());
        if (r.gpuCount() < 1) return bad("--gpu-count must be at least 1, got " + r.gpuCount());
        if (r.gpuCount() > inventory.gpus().size())
            return new Refused(Code.TOO_LARGE, false, "asks " + r.gpuCount() + " GPUs; this host has " + inventory.gpus().size());
        OptionalLong start = procs.startTicks(r.pid());
        if (start.isEmpty()) return bad("process " + r.pid() + " that asks is not running");
        GpuDemand demand;
        switch (resolver.resolve(demandOf(r.memMib(), r.core(), r.gpuCount()))) {
            case DemandResolver.Resolution.Resolved res -> demand = res.demand();
            case DemandResolver.Resolution.Invalid inv -> { return bad(inv.reason().replace("aliyun.com/gpu-count", "--gpu-count")); }
            case DemandResolver.Resolution.NoGpu n -> { return bad("no GPU memory asked"); }
        }
        if (!gate.ready()) return new Refused(Code.DAEMON_DOWN, true, "not starting the command: " + gate.notReadyReason()
                + "; without it the command would run with no GPU memory cap");
        long largestTotal = inventory.gpus().stream().mapToLong(Gpu::totalMib).max().orElse(0);
        if (demand.chargeMib() > largestTotal)
            return new Refused(Code.TOO_LARGE, false, "asks " + mib(demand.chargeMib()) + " per GPU (" + mib(demand.requestedMibPerGpu())
                    + " + " + demand.reserveMib() + " MiB CUDA context reserve), more than the largest GPU here (" + mib(largestTotal)
                    + "); largest free now: " + mib(largestFree()));
        String id = "job-" + Long.toString(clock.millis(), 36) + "-" + seq.incrementAndGet();
        Allocation a;
        switch (engine.assume(PodKey.of(NAMESPACE, id), id, NODE, demand)) {
            case AssumeResult.Assumed as -> a = as.allocation();
            case AssumeResult.AlreadyPlaced ap -> a = ap.allocation();
            case AssumeResult.Rejected rej -> {
                return new Refused(Code.NO_ROOM, true, "no GPU has room now: " + rej.reason() + " (largest free now: " + mib(largestFree()) + ")");
            }
        }
        ledger.markAssigned(a.pod(), NODE);
        JobRecord job = new JobRecord(id, r.pid(), start.getAsLong(), a.gpuIndices(), a.gpuUuids(), r.memMib(), r.core(),
                demand.reserveMib(), r.user(), r.command(), clock.millis(), false);
        jobs.put(id, job);
        Exception refused = applyCeilings(a.gpuIndices());
        if (refused != null) {
            jobs.remove(id);
            ledger.release(a.pod());
            return new Refused(Code.CEILING_FAILED, true, "the MPS daemon did not accept the GPU ceiling for this job: " + refused.getMessage());
        }
        view.put(a.withPhase(Phase.ASSIGNED));
        owners.register(job.pid(), id);
        save();
        return new Answer.Granted(job, env(job));
    }

    /** The command of job {@code id} runs as {@code pid} now: watch it instead of the client. */
    public synchronized boolean started(String id, long pid) {
        JobRecord j = jobs.get(id);
        OptionalLong start = procs.startTicks(pid);
        if (j == null || start.isEmpty()) return false;
        owners.unregister(j.pid());
        JobRecord next = j.watching(pid, start.getAsLong());
        jobs.put(id, next);
        owners.register(pid, id);
        save();
        return true;
    }

    /** Frees job {@code id}; empty when it was not booked (already freed). */
    public synchronized Optional<JobRecord> release(String id) {
        JobRecord j = jobs.remove(id);
        if (j == null) return Optional.empty();
        ledger.release(PodKey.of(NAMESPACE, id));
        view.remove(id);
        owners.unregister(j.pid());
        applyCeilings(List.of());
        save();
        return Optional.of(j);
    }

    /** Frees every job whose watched process is gone (or was replaced by another under the same PID). */
    public synchronized List<JobRecord> reap() {
        List<JobRecord> gone = new ArrayList<>();
        for (JobRecord j : List.copyOf(jobs.values())) {
            if (!procs.alive(j.pid(), j.pidStart())) { release(j.id()); gone.add(j); }
        }
        boolean ready = gate.ready();
        for (Gpu g : inventory.gpus()) view.healthy(g.index(), ready);
        return gone;
    }

    /** After a restart: keeps the saved jobs whose process still runs, frees the others. Returns the freed ones. */
    public synchronized List<JobRecord> restore() {
        List<JobRecord> dropped = new ArrayList<>();
        for (JobRecord j : store.load()) {
            boolean gpusKnown = j.gpuIndices().stream().allMatch(i -> inventory.gpu(i) != null);
            if (!gpusKnown || !procs.alive(j.pid(), j.pidStart())) { dropped.add(j); continue; }
            GpuDemand d = ((DemandResolver.Resolution.Resolved) resolver.resolve(demandOf(j.memMib(), j.core(), j.gpuCount()))).demand();
            Allocation a = new Allocation(PodKey.of(NAMESPACE, j.id()), j.id(), NODE, j.gpuIndices(), j.gpuUuids(), d,
                    Instant.ofEpochMilli(j.createdAtMillis()), Phase.ASSIGNED);
            ledger.restore(a);
            view.put(a);
            owners.register(j.pid(), j.id());
            jobs.put(j.id(), j);
        }
        applyCeilings(List.of());
        save();
        return dropped;
    }

    /** The env a job's command runs with: what the device plugin answers a container ({@link MpsLimits#clientEnv}), for a bare host. */
    public Map<String, String> env(JobRecord j) {
        Map<String, String> env = new LinkedHashMap<>();
        env.put(ENV_CUDA_VISIBLE_DEVICES, String.join(",", j.gpuUuids()));
        env.putAll(MpsLimits.clientEnv(j.gpuUuids(), Collections.nCopies(j.gpuCount(), j.capMibPerGpu()), j.core(), gate.pipeDir().toString()));
        env.put(ENV_JOB, j.id());
        env.put(ENV_GPU_INDEX, String.join(",", j.gpuIndices().stream().map(String::valueOf).toList()));
        env.put(ENV_MEM_MIB, Long.toString(j.memMib() / j.gpuCount()));
        env.put(ENV_RESERVE_MIB, Long.toString(j.reserveMib()));
        return env;
    }

    /** The largest free MiB on one usable GPU now. */
    public long largestFree() {
        NodeState s = node();
        long best = 0;
        for (int pos = 0; pos < s.gpuCount(); pos++) best = Math.max(best, s.freeMib(pos));
        return best;
    }

    /**
     * Each GPU's server ceiling = {@link MpsLimits#ceilings} of the caps booked on it (whole GiB, rounded up; 1 GiB on a GPU
     * with no job, so a GPU's ceiling drops to the floor when its last job leaves); set only where it changes, raises
     * first so none waits on a lowering. Returns the first failure on one of {@code mustApply} (the GPUs of the job
     * being granted), or null; any other failure is left for the next change (the supervisor also keeps a ceiling the
     * daemon could not take yet, and applies it when the daemon answers).
     */
    private Exception applyCeilings(List<Integer> mustApply) {
        var caps = new ArrayList<MpsLimits.Cap<Integer>>();
        for (JobRecord j : jobs.values()) for (int i : j.gpuIndices()) caps.add(new MpsLimits.Cap<>(i, j.capMibPerGpu()));
        Map<Integer, Long> want = MpsLimits.ceilings(caps, inventory.gpus().stream().map(Gpu::index).toList());
        for (boolean raising : new boolean[]{true, false}) {
            for (Map.Entry<Integer, Long> w : want.entrySet()) {
                Long had = ceilings.get(w.getKey());
                if (w.getValue().equals(had) || raising != (had == null || w.getValue() > had)) continue;
                try {
                    gate.setCeiling(w.getKey(), w.getValue());
                    ceilings.put(w.getKey(), w.getValue());
                } catch (Exception e) {
                    if (mustApply.contains(w.getKey())) return e;
                }
            }
        }
        return null;
    }

    private void save() { store.save(List.copyOf(jobs.values())); }

    private static PodInfo demandOf(long memMib, int core, int gpuCount) {
        return new PodInfo(PodKey.of(NAMESPACE, "request"), "", List.of(ContainerRequest.app("main", memMib, core)), gpuCount, OptionalLong.empty());
    }

    private static Refused bad(String why) { return new Refused(Code.BAD_REQUEST, false, why); }

    static String mib(long mib) {
        return mib % 1024 == 0 ? (mib / 1024) + " GiB" : String.format(Locale.ROOT, "%.2f GiB (%d MiB)", mib / 1024.0, mib);
    }
}
