package io.mpshare.policing;

import io.mpshare.core.ledger.Allocation;
import io.mpshare.nvml.Nvml;
import io.mpshare.nvml.NvmlException;
import io.mpshare.policing.Snapshot.GpuSample;
import io.mpshare.policing.metrics.PolicerMetrics;
import io.mpshare.policing.proc.ProcFs;

import java.time.Instant;
import java.time.InstantSource;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.stream.Collectors;

/**
 * The per-node GPU memory policer: every {@code period}, sample → judge → act → publish, in one cycle.
 *
 * <h2>Implementation notes</h2>
 * <ul>
 *   <li><b>One cycle</b> ({@link #runOnce()}): read the {@link NodeView}; take a {@link Snapshot} (NVML per GPU,
 *       owners per PID); {@link VerdictEngine} judges it (pure); {@link ActionPlanner} turns findings into
 *       actions by policy (pure); {@link Enforcer} carries out the new ones (de-duplicated); the report goes to
 *       metrics and, at most every {@code usageEvery}, usage to the {@link UsageSink}. A finding is acted on
 *       in the cycle whose sample saw it, so within one period plus the time of the actions.</li>
 *   <li><b>Concurrency.</b> Cycles run on the injected scheduled executor at a fixed rate; {@link #endPod}
 *       comes from other threads (the pod informer). A lock serialises them, so enforcement state is
 *       single-threaded. A cycle never throws out of the executor (that would cancel the schedule):
 *       NVML failing as a whole is counted and the cycle skipped.</li>
 *   <li><b>Time</b> comes from the injected {@link InstantSource} only; tests drive {@link #runOnce()} with a
 *       fake clock and never sleep.</li>
 *   <li><b>No Kubernetes.</b> Events, eviction, usage publishing and PID ownership are interfaces; the device
 *       plugin implements them over the API server, host mode without one.</li>
 * </ul>
 */
public final class Policer implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(Policer.class.getName());

    private final PolicerConfig config;
    private final NodeView view;
    private final Sampler sampler;
    private final VerdictEngine engine;
    private final Enforcer enforcer;
    private final UsageSink usage;
    private final PolicerMetrics metrics;
    private final InstantSource clock;
    private final ScheduledExecutorService executor;
    private final ReentrantLock lock = new ReentrantLock();
    private volatile CycleReport last;
    private Instant lastUsage;
    private ScheduledFuture<?> task;

    private Policer(Builder b) {
        this.config = Objects.requireNonNull(b.config, "config");
        this.view = Objects.requireNonNull(b.view, "view");
        this.clock = Objects.requireNonNull(b.clock, "clock");
        this.executor = b.executor;
        this.usage = Objects.requireNonNull(b.usage, "usage");
        this.metrics = b.metrics != null ? b.metrics
                : new PolicerMetrics(new io.prometheus.metrics.model.registry.PrometheusRegistry(), config.node());
        PidOwners owners = Objects.requireNonNull(b.owners, "owners");
        this.sampler = new Sampler(Objects.requireNonNull(b.nvml, "nvml"), owners, Objects.requireNonNull(b.servers, "servers"),
                new ServerIdentity(new ProcFs(config.procRoot())));
        this.engine = new VerdictEngine(config.slackMibPerPod());
        this.enforcer = new Enforcer(config, Objects.requireNonNull(b.daemons, "daemons"), Objects.requireNonNull(b.killer, "killer"),
                Objects.requireNonNull(b.evictor, "evictor"), Objects.requireNonNull(b.events, "events"), metrics, sampler);
    }

    public static Builder builder() { return new Builder(); }

    /** Starts sampling every {@code period} on the injected executor. */
    public void start() {
        Objects.requireNonNull(executor, "start() needs an executor (Builder.executor)");
        lock.lock();
        try {
            if (task != null) return;
            long ms = config.period().toMillis();
            task = executor.scheduleAtFixedRate(this::cycleQuietly, 0, ms, TimeUnit.MILLISECONDS);
        } finally {
            lock.unlock();
        }
    }

    /** Stops sampling; the executor belongs to the caller. */
    @Override
    public void close() {
        lock.lock();
        try {
            if (task != null) task.cancel(false);
            task = null;
        } finally {
            lock.unlock();
        }
    }

    /** The last cycle's report, or empty before the first. */
    public Optional<CycleReport> lastReport() { return Optional.ofNullable(last); }

    public PolicerConfig config() { return config; }

    /**
     * One full cycle now: sample, judge, act, publish. What the scheduler runs each period, and what a
     * harness calls to drive the policer step by step. Throws {@link NvmlException} when NVML cannot be read at all.
     */
    public CycleReport runOnce() {
        lock.lock();
        try {
            Instant now = clock.instant();
            Map<String, Allocation> allocations = byUid(view.allocations());
            Snapshot snapshot = sampler.sample(now, view);
            VerdictEngine.Judgement j = engine.judge(snapshot, allocations, view.exemptPods());
            List<Action> planned = ActionPlanner.plan(j.findings(), config.policy());
            Set<Integer> unsampled = snapshot.gpus().stream().filter(g -> !g.sampled()).map(GpuSample::index).collect(Collectors.toSet());
            List<Outcome> outcomes = enforcer.enforce(now, planned, unsampled);
            CycleReport report = new CycleReport(snapshot, allocations, j.findings(), outcomes, j.usage());
            last = report;
            metrics.cycle(report, now.toEpochMilli() / 1000.0);
            if (lastUsage == null || !now.isBefore(lastUsage.plus(config.usageEvery()))) {
                lastUsage = now;
                try {
                    usage.publish(j.usage());
                } catch (RuntimeException e) {
                    LOG.log(System.Logger.Level.WARNING, "usage sink failed: " + e);
                }
            }
            return report;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Ends a pod's MPS clients through their control daemons: called when the pod is being deleted, so
     * its processes leave the GPU through MPS rather than by a SIGKILL mid-kernel. Returns the client PIDs
     * asked to end (empty when the pod has none). Safe to call from any thread.
     */
    public List<Long> endPod(String podUid) {
        Objects.requireNonNull(podUid, "podUid");
        lock.lock();
        try {
            return enforcer.endClients(clock.instant(), podUid, sampler.clientsNow(view));
        } catch (NvmlException e) {
            metrics.failure("end_pod");
            LOG.log(System.Logger.Level.WARNING, "cannot end MPS clients of pod " + podUid + ": " + e.getMessage());
            return List.of();
        } finally {
            lock.unlock();
        }
    }

    private void cycleQuietly() {
        try {
            runOnce();
        } catch (RuntimeException e) {
            metrics.cycleFailed();
            LOG.log(System.Logger.Level.WARNING, "policer cycle failed: " + e);
        }
    }

    private static Map<String, Allocation> byUid(List<Allocation> as) {
        Map<String, Allocation> m = new LinkedHashMap<>();
        for (Allocation a : as) if (!a.podUid().isBlank()) m.put(a.podUid(), a);
        return m;
    }

    /** Wiring by hand: every collaborator is an interface; the sinks default to doing nothing. */
    public static final class Builder {
        private PolicerConfig config;
        private Nvml nvml;
        private NodeView view;
        private PidOwners owners;
        private MpsServers servers;
        private MpsDaemons daemons = List::of;
        private ProcessKiller killer = new SigkillProcessKiller();
        private Evictor evictor = Evictor.unsupported();
        private EventSink events = EventSink.logging();
        private UsageSink usage = UsageSink.none();
        private PolicerMetrics metrics;
        private InstantSource clock = InstantSource.system();
        private ScheduledExecutorService executor;

        private Builder() {}

        public Builder config(PolicerConfig c) { this.config = c; return this; }
        public Builder nvml(Nvml n) { this.nvml = n; return this; }
        public Builder view(NodeView v) { this.view = v; return this; }
        public Builder owners(PidOwners o) { this.owners = o; return this; }
        /** The supervisors' reports that name the MPS servers (required: nothing else tells the server from a rogue). */
        public Builder servers(MpsServers s) { this.servers = s; return this; }
        public Builder daemons(MpsDaemons d) { this.daemons = d; return this; }
        public Builder killer(ProcessKiller k) { this.killer = k; return this; }
        public Builder evictor(Evictor e) { this.evictor = e; return this; }
        public Builder events(EventSink e) { this.events = e; return this; }
        public Builder usage(UsageSink u) { this.usage = u; return this; }
        public Builder metrics(PolicerMetrics m) { this.metrics = m; return this; }
        public Builder clock(InstantSource c) { this.clock = c; return this; }
        public Builder executor(ScheduledExecutorService e) { this.executor = e; return this; }

        public Policer build() { return new Policer(this); }
    }
}
