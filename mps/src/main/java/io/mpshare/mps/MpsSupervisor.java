package io.mpshare.mps;

import io.mpshare.mps.fault.FaultJudge;
import io.mpshare.mps.fault.FaultJudge.Finding;
import io.mpshare.mps.fault.FaultSignal;
import io.mpshare.mps.fault.FaultSource;
import io.mpshare.mps.proc.HolderFinder;
import io.mpshare.mps.proc.Processes;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.Function;
import java.util.logging.Logger;

/**
 * Keeps one colour's MPS control daemons running with their settings applied, and reports on them: the colour's node
 * daemon ({@code <run>/<colour>/pipe}, every shared GPU, the pre-domain path) and one daemon per fault domain
 * ({@code <run>/<colour>/d/<id>/}, one GPU each), created and deleted through {@link DomainService}.
 *
 * <h2>Implementation notes</h2>
 * <b>Why it matters.</b> If a control daemon dies, its clients die, and new CUDA processes run without MPS and without
 * any cap (FACTS.md). So each daemon is restarted with backoff, its settings re-applied, and "not ready" said in between.
 * A daemon is never killed because it stopped answering while it may have clients: any process that can reach its pipe
 * directory can make it stop answering ({@link DaemonKeeper}).
 *
 * <p><b>Parts.</b> Each daemon has a {@link DaemonKeeper} (launch, probe, settings, health, STALLED, backoff, stop) and a
 * {@link Lane} for its control commands. Domains ({@link Domain}) add the fault handling and the drain; a
 * {@link FaultWatch} polls the fault detectors and a {@link FaultJudge} decides which domain faulted. Domains are kept on
 * disk ({@link DomainStore}) and their daemons adopted after a restart of the supervisor. The node daemon's readiness
 * marker and {@code status.json} are {@link SupervisorFiles}'.
 *
 * <p><b>Invariants.</b> (1) The readiness marker exists exactly while the published status says the node daemon is
 * {@code ready} ({@link #publish} keeps them in step). (2) A domain's record on disk is rewritten whenever what it holds
 * changes, before the change is published. (3) The flat {@code servers} list holds every MPS server of every daemon of
 * this colour (the policer recognises the MPS server by these PIDs).
 *
 * <p><b>Concurrency.</b> All state is confined to one thread: the single-threaded {@link ScheduledExecutorService} given
 * in ({@link SupervisorThread}). Public methods submit work to it and return futures; daemons' exits and the lanes'
 * results are posted to it too. Readers get an immutable {@link SupervisorStatus} through a volatile field, never a lock.
 * Tests pass a manual scheduler and advance time: no sleeps.
 *
 * <p><b>Failure modes.</b> Binary missing: each start fails, status says why, backoff to {@code max}. Another daemon
 * already answers on a pipe (left from an earlier run, not recorded): not started over it; retried with backoff. A
 * setting refused: stays STARTING, not ready, {@code lastError} says which. Shutdown with clients connected: refused
 * unless forced ({@link #stop}). On SIGTERM only the node daemon is stopped: the domains' daemons keep serving and are
 * adopted by the next supervisor.
 */
public final class MpsSupervisor implements DomainService {
    private static final Logger LOG = Logger.getLogger(MpsSupervisor.class.getName());
    /** More domains than this in one colour is a caller's bug, not a node (each is a daemon process). */
    static final int MAX_DOMAINS = 256;

    /** What {@link #stop} did. */
    public sealed interface StopResult {
        record Stopped(int exitCode) implements StopResult {}

        record Refused(List<Long> clients) implements StopResult {}
    }

    /**
     * How the supervisor reaches its machine.
     *
     * @param launcher    starts and adopts daemons; also the machine's processes and holder finder
     * @param nodeControl the control language on the node daemon's pipe directory
     * @param controls    the control language on a domain's pipe directory; null: this supervisor runs no domains
     * @param commands    where daemons' control commands run (virtual threads in production); null: on the supervisor's
     *                    own thread, one step each (host mode, the single-daemon tests)
     * @param faultSources fault detectors for the domains (the domains' logs, NVML Xid events)
     * @param faultPoll   how often they are polled
     */
    public record Parts(DaemonLauncher launcher, MpsControl nodeControl, Function<Path, MpsControl> controls, Executor commands,
                        List<FaultSource> faultSources, Duration faultPoll) {
        public Parts {
            Objects.requireNonNull(launcher);
            Objects.requireNonNull(nodeControl);
            faultSources = faultSources == null ? List.of() : List.copyOf(faultSources);
            faultPoll = faultPoll == null ? Duration.ofMillis(200) : faultPoll;
        }

        /** The node daemon only, commands on the supervisor's thread. */
        public static Parts nodeOnly(DaemonLauncher launcher, MpsControl control) {
            return new Parts(launcher, control, null, null, List.of(), null);
        }
    }

    private final SupervisorConfig config;
    private final Parts parts;
    private final SupervisorThread thread;
    private final SupervisorMetrics metrics;
    private final SupervisorFiles files;
    private final DomainStore store;
    private final DaemonKeeper.Parts keeperParts;
    private final DaemonKeeper node;
    private final Map<String, Domain> domains = new LinkedHashMap<>();
    private final Map<String, DomainStore.Record> written = new LinkedHashMap<>();
    private final FaultWatch faults;
    private boolean markerPresent;
    private boolean started;

    private volatile SupervisorStatus status;

    public MpsSupervisor(SupervisorConfig config, DaemonLauncher launcher, MpsControl control,
                         ScheduledExecutorService executor, InstantSource clock, SupervisorMetrics metrics) {
        this(config, Parts.nodeOnly(launcher, control), executor, clock, metrics);
    }

    public MpsSupervisor(SupervisorConfig config, Parts parts, ScheduledExecutorService executor, InstantSource clock, SupervisorMetrics metrics) {
        this.config = config;
        this.parts = parts;
        this.metrics = metrics;
        this.thread = new SupervisorThread(executor, clock, this::stepFailed);
        this.files = new SupervisorFiles(config.colour(), config.runDir());
        this.store = new DomainStore(config.colour(), config.runDir());
        Processes processes = parts.launcher().processes();
        HolderFinder holders = parts.launcher().holders();
        this.keeperParts = new DaemonKeeper.Parts(parts.launcher(), thread, config.timings(), processes, holders);
        MpsControl nodeControl = new ProgressControl(parts.nodeControl(), thread::progressed);
        this.node = new DaemonKeeper("node daemon", new DaemonLauncher.Spec(config.pipeDir(), config.logDir(),
                config.visibleDevices().isEmpty() ? Map.of() : Map.of("CUDA_VISIBLE_DEVICES", config.visibleDevices())),
                nodeControl, lane(), keeperParts, new NodeListener(), config.initialCeilingsMib(), config.defaultActiveThreadPercentage());
        this.faults = new FaultWatch(parts.faultSources(), new FaultJudge(Duration.ofSeconds(3), Duration.ofSeconds(10)), thread,
                parts.faultPoll(), new FaultSink());
        files.deleteReadyMarker(); // a marker left by an earlier run says nothing about this one
        this.status = snapshot();
    }

    /** Starts the node daemon and adopts (or restarts) the domains an earlier supervisor of this colour left (asynchronously). */
    public void start() {
        thread.execute(() -> {
            if (started) return;
            started = true;
            node.start();
            if (parts.controls() != null) store.load().forEach(this::restore);
            faults.start();
            publish();
        });
    }

    /** The latest snapshot: cheap, never blocks. */
    public SupervisorStatus status() { return status; }

    /**
     * A heartbeat: a snapshot taken on the supervisor's own thread. It completes only while that thread runs, so a
     * caller that waits with a deadline learns whether the supervisor can still notice its daemons' exits.
     */
    public CompletableFuture<SupervisorStatus> ping() { return thread.call(this::snapshot); }

    /**
     * Sets the node daemon's server ceiling of GPU {@code device}: on every running server and as the default for future
     * ones, read back each time; kept and applied after every later start. If the daemon answers but refuses it, the
     * previous ceiling is kept and the future fails (a bad request must not make the node unready); if it does not
     * answer, the ceiling stays pending and is applied as soon as it does.
     */
    public CompletableFuture<SupervisorStatus> setCeiling(int device, long mib) {
        if (device < 0 || mib <= 0) throw new IllegalArgumentException("ceiling needs device >= 0 and MiB > 0, got " + device + ", " + mib);
        return thread.call(() -> node.setCeiling(device, mib)).thenCompose(f -> f).thenCompose(v -> thread.call(() -> {
            metrics.ceilingChanged();
            publish();
            return status;
        }));
    }

    /**
     * Stops the node daemon with {@code quit}. Refused while clients are connected unless {@code force} (quitting ends
     * them), and while it does not answer but may have clients. Domains' daemons are left running (adopted by the next
     * supervisor); a daemon not gone after {@code quitTimeout} gets SIGTERM, then SIGKILL.
     */
    public CompletableFuture<StopResult> stop(boolean force) {
        return thread.call(() -> node.stop(force)).thenCompose(f -> f);
    }

    public Optional<Duration> busyFor() { return thread.busyFor(); }

    /** Closes the fault detectors (NVML). The daemons are left as they are: the domains' serve on for the next supervisor. */
    public void close() { faults.close(); }

    public Colour colour() { return config.colour(); }

    public Path runDir() { return config.runDir(); }

    // ---- domains ----

    @Override public CompletableFuture<Answer> put(String id, DomainSpec spec) {
        return thread.call(() -> {
            String problem = DomainPaths.problem(config.colour(), config.runDir(), id);
            if (problem != null) return new Answer.Refused(false, problem);
            if (parts.controls() == null) return new Answer.Refused(false, "this supervisor runs no fault domains");
            Domain d = domains.get(id);
            if (d != null) {
                if (!d.spec().sameDaemon(spec))
                    return new Answer.Refused(true, "domain " + id + " exists for GPU " + d.gpu() + " (" + d.spec().kind().id() + "): ids derive from both");
                d.update(spec);
            } else {
                if (domains.size() >= MAX_DOMAINS) return new Answer.Refused(false, "this colour already runs " + MAX_DOMAINS + " domains");
                d = create(id, spec, 0, null);
                d.start();
                LOG.info("domain " + id + ": " + spec.kind().id() + " on " + spec.gpu() + ", ceiling " + spec.appliedCeilingMiB()
                        + " MiB, active thread percentage " + spec.activeThreadPercentage() + " %, pipe " + d.paths().pipeDir());
            }
            publish();
            return new Answer.Accepted(d.status());
        });
    }

    @Override public CompletableFuture<Optional<DomainStatus>> delete(String id) {
        return thread.call(() -> {
            Domain d = domains.get(id);
            if (d == null) return Optional.empty();
            d.drain();
            publish();
            return Optional.of(d.status());
        });
    }

    @Override public Optional<DomainStatus> domain(String id) { return status.domain(id); }

    @Override public List<DomainStatus> domains() { return status.domains(); }

    @Override public CompletableFuture<DomainStatus> whenServing(String id) {
        return thread.call(() -> {
            Domain d = domains.get(id);
            if (d == null) throw new MpsException("no domain " + id);
            return d.whenServing();
        }).thenCompose(f -> f);
    }

    private Domain create(String id, DomainSpec spec, long faultCount, DomainStatus.Fault lastFault) {
        DomainPaths paths = DomainPaths.of(config.colour(), config.runDir(), id);
        MpsControl control = new ProgressControl(parts.controls().apply(paths.pipeDir()), thread::progressed);
        Domain d = new Domain(id, paths, spec, control, lane(), keeperParts, new DomainOwner(), faultCount, lastFault);
        domains.put(id, d);
        faults.watch(id, List.of(paths.daemonLog(), paths.logDir().resolve("server.log"), paths.logDir().resolve("control.log")));
        return d;
    }

    /** A domain an earlier supervisor left: its daemon adopted if it still runs, else started again (its clients died with it). */
    private void restore(DomainStore.Record r) {
        Optional<DaemonLauncher.Daemon> running = r.daemonStartedAt() == null ? Optional.empty()
                : parts.launcher().adopt(r.daemonPid(), Instant.parse(r.daemonStartedAt()));
        if (running.isEmpty() && r.draining()) {
            LOG.info("domain " + r.id() + ": was draining and its daemon is gone: removed");
            store.remove(r.id());
            return;
        }
        Domain d = create(r.id(), r.spec(), r.faults(), r.lastFault());
        if (r.draining()) d.drainingAlready();
        written.put(r.id(), r);
        if (running.isPresent()) {
            d.adopt(running.get());
        } else {
            LOG.warning("domain " + r.id() + ": its daemon (pid " + r.daemonPid() + ") is gone: starting a new one");
            d.start();
        }
    }

    private Lane lane() { return new Lane(parts.commands() == null ? thread : parts.commands(), thread); }

    // ---- publishing ----

    /** Publishes a new snapshot: domain records first, then the status file; the readiness marker follows {@code ready}. */
    private void publish() {
        for (Domain d : domains.values()) persist(d);
        status = snapshot();
        metrics.daemonUp(status.ready());
        if (status.ready() != markerPresent) {
            if (status.ready()) files.writeReadyMarker(status.daemonPid()); else files.deleteReadyMarker();
            markerPresent = status.ready();
        }
        files.writeStatus(status);
    }

    private void persist(Domain d) {
        DaemonLauncher.Daemon daemon = d.keeper().daemon();
        DomainStore.Record r = new DomainStore.Record(d.id(), d.spec(), daemon == null ? -1 : daemon.pid(),
                daemon == null ? null : daemon.startedAt().map(Instant::toString).orElse(null), d.draining(), d.faults(), d.lastFault());
        if (r.equals(written.get(d.id()))) return;
        store.write(r);
        written.put(d.id(), r);
    }

    private SupervisorStatus snapshot() {
        List<DomainStatus> ds = domains.values().stream().map(Domain::status).toList();
        List<SupervisorStatus.Server> all = new ArrayList<>(node.servers());
        domains.values().forEach(d -> all.addAll(d.keeper().servers()));
        return new SupervisorStatus(config.colour().id(), node.answering(), node.ready(), node.phase().name(), node.daemonPid(),
                config.pipeDir().toString(), config.logDir().toString(), node.restarts(), node.lastError(), iso(node.lastErrorAt()),
                iso(node.upSince()), node.threads().isPresent() ? node.threads().getAsInt() : null, node.ceilings(), node.pending(),
                all, iso(thread.now()), node.stalledBy(), ds);
    }

    private static String iso(Instant t) { return t == null ? null : t.toString(); }

    private void stepFailed(RuntimeException e) {
        node.failed("supervisor step failed: " + e);
        publish();
    }

    /** The node daemon's keeper reports here. */
    private final class NodeListener implements DaemonKeeper.Listener {
        @Override public void changed() { publish(); }

        @Override public void restarted() { metrics.restarted(); }

        @Override public void settingRestored(String what) { metrics.ceilingRestored(); }

        @Override public void stalled(boolean stalled) { metrics.stalled("node", stalled); }
    }

    /** Every domain reports here. */
    private final class DomainOwner implements Domain.Owner {
        @Override public void changed() { publish(); }

        @Override public void gone(Domain d) {
            domains.remove(d.id());
            written.remove(d.id());
            faults.unwatch(d.id());
            store.remove(d.id());
            metrics.domainRemoved(d.id());
            LOG.info("domain " + d.id() + ": stopped and removed");
            publish();
        }

        @Override public void signal(FaultSignal s) { faults.take(s); }

        @Override public SupervisorMetrics metrics() { return metrics; }
    }

    /** The fault detectors report here. */
    private final class FaultSink implements FaultWatch.Sink {
        @Override public Map<String, String> gpus() {
            Map<String, String> out = new LinkedHashMap<>();
            domains.forEach((id, d) -> out.put(id, d.gpu()));
            return out;
        }

        @Override public void found(Finding f) {
            Domain d = domains.get(f.domain());
            if (d != null) d.fault(f);
        }

        @Override public void xid(String gpu) {
            LOG.warning("Xid on GPU " + gpu + ": asking its domains' daemons whether their servers are still ACTIVE");
            domains.values().stream().filter(d -> d.gpu().equals(gpu)).forEach(Domain::askServerStatus);
        }

        @Override public void counted(FaultSignal s) { metrics.faultSignal(s.source()); }
    }
}
