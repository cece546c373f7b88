package io.mpshare.mps;

import io.mpshare.mps.MpsException.Reason;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.logging.Logger;

/**
 * Keeps one MPS control daemon ({@code nvidia-cuda-mps-control -f}) running for the node's shared
 * GPUs, with every setting applied, and reports on it.
 *
 * <h2>Implementation notes</h2>
 * <b>Why it matters.</b> If the control daemon dies, its clients die, and new CUDA processes run
 * without MPS and without any cap (FACTS.md). So the supervisor restarts it, re-applies the settings a
 * fresh daemon has lost, and says "not ready" (marker file gone, {@code ready=false}) in between, so
 * the device plugin reports the GPUs Unhealthy and no pod starts unprotected.
 *
 * <p><b>Phases.</b> {@code STOPPED → STARTING} (launched; probing the pipe every {@code probeInterval})
 * {@code → UP} (answers; thread percentage and ceilings applied; marker written; health checked every
 * {@code healthInterval}) {@code → BACKOFF} (it exited; relaunch after {@link Backoff#delay})
 * {@code → STARTING ...}; {@link #stop} leads to {@code STOPPING → STOPPED}.
 *
 * <p><b>Invariants.</b> (1) The readiness marker exists exactly while the published status says
 * {@code ready}: phase {@code UP}, the last health check answered, every setting read back as set
 * ({@link #publish} keeps them in step). (2) At most one daemon is started at a time; a
 * daemon's exit is matched to its launch by a generation number, so a late exit of an old daemon never
 * restarts the new one. (3) Ceilings are only ever changed on the running daemon
 * ({@code set_device_pinned_mem_limit} on each server, {@code set_default_device_pinned_mem_limit} for
 * future ones); the supervisor never restarts the daemon to change a setting. (4) A desired ceiling the
 * daemon refused stays in {@code ceilingsPending} and is retried each health check and after each start.
 * (5) Each health check reads every server's ceiling back and puts back one that was changed: the daemon
 * takes {@code set_device_pinned_mem_limit} for a server from that server's own UID.
 *
 * <p><b>Concurrency.</b> All state is confined to one thread: the single-threaded
 * {@link ScheduledExecutorService} given in. Public methods submit work to it and return futures; the
 * daemon's exit is posted to it too. Readers get an immutable {@link SupervisorStatus} through a
 * volatile field, never a lock. Tests pass a manual scheduler and advance time: no sleeps.
 *
 * <p><b>Backoff.</b> After an exit (or a failed start) the next start waits {@code initial × 2^(n−1)},
 * capped at {@code max}, where n counts failures in a row; a daemon that stayed up {@code stableAfter}
 * starts the count again. A daemon that never answers within {@code maxProbes} probes, or stops
 * answering for {@code maxMissedHealthChecks} checks, is killed and so restarted.
 *
 * <p><b>Failure modes.</b> Binary missing: each start fails, status says why, backoff to {@code max}.
 * Another daemon already answers on the pipe (left from an earlier run): not started over it; reported
 * in {@code lastError} and retried with backoff. A setting refused (old driver: "Unknown command"):
 * stays STARTING, not ready, {@code lastError} says which. Shutdown with clients connected: refused
 * unless forced ({@link #stop}); the clients are logged, because quitting would kill them.
 */
public final class MpsSupervisor implements DomainService {
    private static final Logger LOG = Logger.getLogger(MpsSupervisor.class.getName());

    /** The supervisor's state machine; see the class notes. */
    public enum Phase { STOPPED, STARTING, UP, BACKOFF, STOPPING }

    /** What {@link #stop} did. */
    public sealed interface StopResult {
        record Stopped(int exitCode) implements StopResult {}

        record Refused(List<Long> clients) implements StopResult {}
    }

    private final SupervisorConfig config;
    private final DaemonLauncher launcher;
    private final MpsControl control;
    private final ScheduledExecutorService executor;
    private final InstantSource clock;
    private final SupervisorMetrics metrics;
    private final SupervisorFiles files;
    private final DaemonSettings settings;

    // confined to executor
    private Phase phase = Phase.STOPPED;
    private DaemonLauncher.Daemon daemon;
    private int generation;
    private long launches;
    private int failuresInARow;
    private Instant upSince;
    private String lastError;
    private Instant lastErrorAt;
    private int missedHealthChecks;
    private String killedBecause;
    private boolean markerPresent;
    private final Map<Integer, Long> ceilings;
    private final Set<Integer> pending = new LinkedHashSet<>();
    private List<SupervisorStatus.Server> servers = List.of();
    private ScheduledFuture<?> next;
    private CompletableFuture<StopResult> stopping;

    private volatile SupervisorStatus status;
    private volatile Instant stepStarted;

    public MpsSupervisor(SupervisorConfig config, DaemonLauncher launcher, MpsControl control,
                         ScheduledExecutorService executor, InstantSource clock, SupervisorMetrics metrics) {
        this.config = config;
        this.launcher = launcher;
        this.control = new ProgressControl(control, this::progressed);
        this.executor = executor;
        this.clock = clock;
        this.metrics = metrics;
        this.files = new SupervisorFiles(config.colour(), config.runDir());
        this.settings = new DaemonSettings(this.control);
        this.ceilings = new TreeMap<>(config.initialCeilingsMib());
        files.deleteReadyMarker(); // a marker left by an earlier run says nothing about this one
        this.status = snapshot();
    }

    /** Starts the daemon (asynchronously); it is kept running until {@link #stop}. */
    public void start() { post(this::launch); }

    /** The latest snapshot: cheap, never blocks. */
    public SupervisorStatus status() { return status; }

    /**
     * A heartbeat: a snapshot taken on the supervisor's own thread. It completes only while that thread runs, so a
     * caller that waits with a deadline learns whether the supervisor can still notice its daemon's exit (a stuck
     * thread cannot; {@link #status()} would keep saying "up").
     */
    public CompletableFuture<SupervisorStatus> ping() { return call(this::snapshot); }

    /**
     * Sets the server ceiling of GPU {@code device}: on every running server and as the default for
     * future ones, read back each time. Stored and applied after every later start as well.
     * If the daemon answers but refuses it (a device it does not have, an unknown command), the previous
     * ceiling is kept and the future fails: a bad request must not make the node unready. If the daemon
     * does not answer, the ceiling stays pending and is applied as soon as it does.
     */
    public CompletableFuture<SupervisorStatus> setCeiling(int device, long mib) {
        if (device < 0 || mib <= 0) throw new IllegalArgumentException("ceiling needs device >= 0 and MiB > 0, got " + device + ", " + mib);
        return call(() -> {
            Long previous = ceilings.put(device, mib);
            boolean wasPending = !pending.add(device);
            if (phase == Phase.UP) {
                try {
                    applyCeiling(device, mib);
                } catch (MpsException e) {
                    if (e.reason() == Reason.DAEMON_DOWN || e.reason() == Reason.TIMEOUT) throw e; // stays pending
                    if (previous == null) ceilings.remove(device); else ceilings.put(device, previous);
                    if (!wasPending) pending.remove(device);
                    throw new MpsException(e.reason(), "ceiling " + mib + " MiB for GPU " + device + " rejected, "
                            + (previous == null ? "none kept" : previous + " MiB kept") + ": " + e.getMessage(), e);
                }
            }
            metrics.ceilingChanged();
            publish();
            return status;
        });
    }

    /**
     * Stops the daemon with {@code quit}. Refused while clients are connected unless {@code force}
     * (quitting ends them); then the clients are logged. A daemon not gone after {@code quitTimeout}
     * gets SIGTERM, then SIGKILL.
     */
    public CompletableFuture<StopResult> stop(boolean force) {
        return call(() -> stopNow(force)).thenCompose(f -> f);
    }

    // ---- launch and probe ----

    private void launch() {
        next = null;
        if (phase == Phase.STOPPING || phase == Phase.UP || phase == Phase.STARTING) return;
        if (launches++ > 0) metrics.restarted();
        try {
            files.createDirectories();
            if (safeDaemonUp()) {
                throw new IOException("another MPS control daemon already answers on " + config.pipeDir()
                        + " (left from an earlier run?): not starting a second one over it");
            }
            daemon = launcher.start(new DaemonLauncher.Spec(config.pipeDir(), config.logDir(),
                    config.visibleDevices().isEmpty() ? Map.of() : Map.of("CUDA_VISIBLE_DEVICES", config.visibleDevices())));
        } catch (IOException | RuntimeException e) {
            failed("could not start the control daemon: " + e.getMessage());
            failuresInARow++;
            scheduleRestart();
            return;
        }
        int g = ++generation;
        phase = Phase.STARTING;
        DaemonLauncher.Daemon started = daemon;
        LOG.info(() -> "started nvidia-cuda-mps-control -f, pid " + started.pid() + ", pipe " + config.pipeDir());
        started.onExit().whenComplete((code, err) -> post(() -> onExit(g, code == null ? -1 : code)));
        schedule(() -> probe(g, 1), config.probeInterval());
        publish();
    }

    private void probe(int g, int attempt) {
        if (g != generation || phase != Phase.STARTING) return;
        if (safeDaemonUp()) {
            applySettings(g);
        } else if (attempt >= config.maxProbes()) {
            killedBecause = "it did not answer on " + config.pipeDir() + " after " + attempt + " probes";
            failed("killing the control daemon: " + killedBecause);
            daemon.kill(); // its exit schedules the restart
        } else {
            schedule(() -> probe(g, attempt + 1), config.probeInterval());
        }
    }

    private void applySettings(int g) {
        try {
            config.defaultActiveThreadPercentage().ifPresent(settings::applyThreadPercentage);
            pending.addAll(ceilings.keySet());
            for (Map.Entry<Integer, Long> c : ceilings.entrySet()) applyCeiling(c.getKey(), c.getValue());
        } catch (MpsException e) {
            failed("applying settings after start: " + e.getMessage());
            schedule(() -> probe(g, 1), config.backoff().delay(1));
            publish();
            return;
        }
        phase = Phase.UP;
        upSince = clock.instant();
        missedHealthChecks = 0;
        try {
            servers = settings.readServers();
        } catch (MpsException e) {
            failed("reading servers after start: " + e.getMessage()); // the next health check decides
        }
        LOG.info(() -> "MPS control daemon up, settings applied: default active thread percentage "
                + (config.defaultActiveThreadPercentage().isPresent() ? config.defaultActiveThreadPercentage().getAsInt() + " %" : "not set (MPS default 100 %)")
                + ", ceilings " + (ceilings.isEmpty() ? "none" : ceilingText()));
        publish();
        schedule(() -> healthCheck(g), config.healthInterval());
    }

    /** Sets one ceiling as the default and on every running server; removes it from pending once applied. */
    private void applyCeiling(int device, long mib) {
        settings.applyCeiling(device, mib);
        pending.remove(device);
    }

    // ---- running ----

    /** (5) A server ceiling changed behind the supervisor's back (a client of that server's UID can) is put back at each health check. */
    private void restoreChangedCeilings() {
        Map<Integer, Long> applied = new TreeMap<>(ceilings);
        pending.forEach(applied::remove);
        for (String r : settings.restoreCeilings(applied)) {
            metrics.ceilingRestored();
            LOG.warning(() -> "server ceiling changed outside the supervisor, put back: " + r
                    + " (a client running as that server's UID sent set_device_pinned_mem_limit)");
        }
    }

    private void healthCheck(int g) {
        if (g != generation || phase != Phase.UP) return;
        try {
            servers = settings.readServers();
            missedHealthChecks = 0;
            for (int device : List.copyOf(pending)) applyCeiling(device, ceilings.get(device));
            restoreChangedCeilings();
        } catch (MpsException e) {
            failed("health check: " + e.getMessage());
            if ((e.reason() == Reason.DAEMON_DOWN || e.reason() == Reason.TIMEOUT) && ++missedHealthChecks >= config.maxMissedHealthChecks()) {
                killedBecause = "it stopped answering for " + missedHealthChecks + " health checks";
                failed("killing the control daemon: " + killedBecause);
                daemon.kill();
            }
        }
        publish();
        schedule(() -> healthCheck(g), config.healthInterval());
    }

    private void onExit(int g, int code) {
        if (g != generation) return;
        cancelNext();
        long pid = daemon == null ? -1 : daemon.pid();
        daemon = null;
        servers = List.of();
        if (phase == Phase.STOPPING) {
            phase = Phase.STOPPED;
            LOG.info(() -> "MPS control daemon (pid " + pid + ") stopped, exit code " + code);
            publish();
            stopping.complete(new StopResult.Stopped(code));
            return;
        }
        boolean wasStable = upSince != null && Duration.between(upSince, clock.instant()).compareTo(config.stableAfter()) >= 0;
        failuresInARow = wasStable ? 1 : failuresInARow + 1;
        upSince = null;
        failed("the control daemon (pid " + pid + ") exited with code " + code
                + (killedBecause == null ? "" : ", killed by the supervisor because " + killedBecause));
        killedBecause = null;
        scheduleRestart();
    }

    private void scheduleRestart() {
        phase = Phase.BACKOFF;
        Duration delay = config.backoff().delay(failuresInARow);
        LOG.warning(() -> "restarting the MPS control daemon in " + delay.toMillis() + " ms (failure " + failuresInARow + " in a row)");
        schedule(this::launch, delay);
        publish();
    }

    // ---- stopping ----

    private CompletableFuture<StopResult> stopNow(boolean force) {
        if (daemon == null) {
            cancelNext();
            phase = Phase.STOPPED;
            publish();
            return CompletableFuture.completedFuture(new StopResult.Stopped(-1));
        }
        if (phase == Phase.STOPPING) return stopping;
        List<Long> clients;
        try {
            servers = settings.readServers();
            clients = servers.stream().flatMap(s -> s.clients().stream()).toList();
        } catch (MpsException e) {
            clients = List.of(); // not answering: no client can be reached through it either
        }
        if (!clients.isEmpty() && !force) {
            LOG.warning("not quitting the MPS control daemon: " + clients.size() + " client(s) connected, quitting would end them: PIDs " + clients);
            publish();
            return CompletableFuture.completedFuture(new StopResult.Refused(clients));
        }
        if (!clients.isEmpty()) LOG.warning("forced quit with " + clients.size() + " client(s) connected, they will fail: PIDs " + clients);
        cancelNext();
        phase = Phase.STOPPING;
        stopping = new CompletableFuture<>();
        publish(); // not ready from here on: the marker goes before quit
        DaemonLauncher.Daemon d = daemon;
        try {
            control.quit();
        } catch (MpsException e) {
            LOG.warning("quit failed (" + e.getMessage() + "): sending SIGTERM");
            d.terminate();
        }
        schedule(() -> {
            if (d.isAlive()) {
                LOG.warning("the control daemon is still running " + config.quitTimeout() + " after quit: SIGTERM, SIGKILL after as long again");
                d.terminate();
                schedule(() -> { if (d.isAlive()) d.kill(); }, config.quitTimeout());
            }
        }, config.quitTimeout());
        publish();
        return stopping;
    }

    // ---- helpers ----


    private boolean safeDaemonUp() {
        try {
            return control.daemonUp();
        } catch (MpsException e) {
            failed(e.getMessage());
            return false;
        }
    }

    private void failed(String message) {
        lastError = message;
        lastErrorAt = clock.instant();
        LOG.warning(message);
    }

    /** Publishes a new snapshot; the readiness marker follows {@code ready} (invariant 1). */
    private void publish() {
        status = snapshot();
        metrics.daemonUp(status.ready());
        if (status.ready() != markerPresent) {
            if (status.ready()) files.writeReadyMarker(status.daemonPid()); else files.deleteReadyMarker();
            markerPresent = status.ready();
        }
        files.writeStatus(status);
    }

    private SupervisorStatus snapshot() {
        boolean up = phase == Phase.UP && missedHealthChecks == 0;
        return new SupervisorStatus(config.colour().id(), up, up && pending.isEmpty(), phase.name(),
                daemon == null ? -1 : daemon.pid(), config.pipeDir().toString(), config.logDir().toString(),
                Math.max(0, launches - 1), lastError, iso(lastErrorAt), iso(upSince),
                config.defaultActiveThreadPercentage().isPresent() ? config.defaultActiveThreadPercentage().getAsInt() : null,
                ceilings, List.copyOf(pending), servers, iso(clock.instant()), List.of(), List.of());
    }

    /** {@code GPU 0: 8 GiB, GPU 1: 1.50 GiB} */
    private String ceilingText() {
        StringBuilder sb = new StringBuilder();
        ceilings.forEach((d, mib) -> sb.append(sb.isEmpty() ? "" : ", ").append("GPU ").append(d).append(": ")
                .append(mib % 1024 == 0 ? (mib / 1024) + " GiB" : mib + " MiB"));
        return sb.toString();
    }

    private static String iso(Instant t) { return t == null ? null : t.toString(); }

    private void schedule(Runnable r, Duration delay) {
        cancelNext();
        try {
            next = executor.schedule(() -> step(r), delay.toNanos(), TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException e) {
            LOG.fine("executor shut down: " + r + " not scheduled");
        }
    }

    private void cancelNext() {
        if (next != null) next.cancel(false);
        next = null;
    }

    /** Runs one step on the supervisor's thread, marking when it began ({@link #busyFor}). */
    private void step(Runnable r) {
        stepStarted = clock.instant();
        try {
            r.run();
        } finally {
            stepStarted = null;
        }
    }

    /** A control command returned: the step is making progress ({@link ProgressControl}). */
    private void progressed() {
        if (stepStarted != null) stepStarted = clock.instant();
    }

    /**
     * How long the supervisor's thread has been inside its current step without finishing a control command (since
     * the step began, or since its last command returned), or empty when it is idle or runs something else. A heartbeat
     * that does not complete while this is short is "busy"; one that does not complete while this is empty or long is
     * "hung" ({@code SupervisorApi}).
     */
    public Optional<Duration> busyFor() {
        Instant began = stepStarted;
        return began == null ? Optional.empty() : Optional.of(Duration.between(began, clock.instant()));
    }

    private void post(Runnable r) {
        try {
            executor.execute(() -> step(() -> {
                try {
                    r.run();
                } catch (RuntimeException e) {
                    failed("supervisor step failed: " + e);
                    publish();
                }
            }));
        } catch (RejectedExecutionException e) {
            LOG.fine("executor shut down: event dropped");
        }
    }

    private <T> CompletableFuture<T> call(Supplier<T> work) {
        CompletableFuture<T> f = new CompletableFuture<>();
        try {
            executor.execute(() -> step(() -> {
                try {
                    f.complete(work.get());
                } catch (RuntimeException e) {
                    if (e instanceof MpsException) {
                        failed(e.getMessage());
                        publish();
                    }
                    f.completeExceptionally(e);
                }
            }));
        } catch (RejectedExecutionException e) {
            f.completeExceptionally(new MpsException("the supervisor is shut down"));
        }
        return f;
    }

    public Colour colour() { return config.colour(); }

    public Path runDir() { return config.runDir(); }

    // ---- domains ----

    @Override public CompletableFuture<Answer> put(String id, DomainSpec spec) {
        return CompletableFuture.completedFuture(new Answer.Refused(false, "this supervisor runs no fault domains"));
    }

    @Override public CompletableFuture<Optional<DomainStatus>> delete(String id) { return CompletableFuture.completedFuture(Optional.empty()); }

    @Override public Optional<DomainStatus> domain(String id) { return status.domain(id); }

    @Override public List<DomainStatus> domains() { return status.domains(); }

    @Override public CompletableFuture<DomainStatus> whenServing(String id) {
        return CompletableFuture.failedFuture(new MpsException("no domain " + id));
    }

    /** Phase for tests and logs. */
    Phase phase() { return Phase.valueOf(status.phase()); }

}
