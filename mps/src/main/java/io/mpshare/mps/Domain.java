package io.mpshare.mps;

import io.mpshare.mps.DomainStatus.Fault;
import io.mpshare.mps.DomainStatus.Signal;
import io.mpshare.mps.MpsSupervisor.StopResult;
import io.mpshare.mps.fault.FaultJudge.Finding;
import io.mpshare.mps.fault.FaultSignal;
import io.mpshare.mps.proc.Processes;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.logging.Logger;

/**
 * One fault domain: its daemon ({@link DaemonKeeper}, on GPU {@code spec.gpu()}, in {@code <run>/<colour>/d/<id>/}), its
 * state as the device plugin reads it, its faults and its drain. Lives on the supervisor's thread.
 *
 * <p>Implementation notes. <b>Faults</b> (measured: one client's fatal fault takes every client of its server down at
 * the same instant, and the server refuses new clients until every faulted client process has exited; killing them all
 * at once let a new client in seconds later, no daemon restart needed): on a {@link Finding} the domain is FAULTED at
 * once, its servers' client lists are read and every client SIGKILLed in the same step, and only then is the fault
 * counted ({@code faults}, {@code lastFault} with the PIDs killed: one change, so the device plugin's Events name them);
 * each later read kills any client
 * still listed, and the domain is SERVING again as soon as every killed process is gone (checked every
 * {@link #RECHECK}, without a control command). Signals that arrive for a fault in progress are added to it. <b>Drain</b>:
 * after DELETE the daemon quits at the first read that finds no client. <b>State</b> is derived: DOWN (no daemon, restart
 * scheduled) over FAULTED over STALLED over DRAINING over STARTING, else SERVING.
 */
final class Domain implements DaemonKeeper.Listener {
    private static final Logger LOG = Logger.getLogger(Domain.class.getName());
    /** How often a fault in progress checks whether the killed clients are gone. */
    static final Duration RECHECK = Duration.ofMillis(100);

    /** What the domain tells the supervisor. */
    interface Owner {
        void changed();

        /** The domain's daemon quit after its drain: forget it. */
        void gone(Domain d);

        /** A detector of the domain's own (its daemon reports a server not ACTIVE) saw something. */
        void signal(FaultSignal s);

        SupervisorMetrics metrics();
    }

    private final String id;
    private final DomainPaths paths;
    private final SupervisorThread thread;
    private final Processes processes;
    private final Lane lane;
    private final MpsControl control;
    private final DaemonKeeper keeper;
    private final Owner owner;
    private DomainSpec spec;
    private boolean draining;
    private boolean quitting;
    private long faults;
    private Fault lastFault;
    private Faulted faulted;
    private DomainState shown;
    private Instant shownSince;
    private final List<CompletableFuture<DomainStatus>> waiting = new ArrayList<>();

    /** A fault in progress: when, on which source, the signals so far, the clients killed. */
    private static final class Faulted {
        final Instant at;
        final String source;
        final List<Signal> signals = new ArrayList<>();
        final Set<Long> killed = new LinkedHashSet<>();

        Faulted(Instant at, String source) {
            this.at = at;
            this.source = source;
        }
    }

    Domain(String id, DomainPaths paths, DomainSpec spec, MpsControl control, Lane lane, DaemonKeeper.Parts parts, Owner owner,
           long faults, Fault lastFault) {
        this.id = id;
        this.paths = paths;
        this.spec = spec;
        this.thread = parts.thread();
        this.processes = parts.processes();
        this.lane = lane;
        this.control = control;
        this.owner = owner;
        this.faults = faults;
        this.lastFault = lastFault;
        DaemonLauncher.Spec daemonSpec = new DaemonLauncher.Spec(paths.pipeDir(), paths.logDir(), Map.of("CUDA_VISIBLE_DEVICES", spec.gpu()),
                Optional.of(paths.daemonLog()));
        this.keeper = new DaemonKeeper("domain " + id, daemonSpec, control, lane, parts, this, Map.of(0, spec.appliedCeilingMiB()),
                OptionalInt.of(spec.activeThreadPercentage()));
    }

    String id() { return id; }

    String gpu() { return spec.gpu(); }

    DomainSpec spec() { return spec; }

    DomainPaths paths() { return paths; }

    boolean draining() { return draining; }

    long faults() { return faults; }

    Fault lastFault() { return lastFault; }

    DaemonKeeper keeper() { return keeper; }

    void start() { keeper.start(); }

    void adopt(DaemonLauncher.Daemon running) { keeper.adopt(running); }

    /** A new spec for the same daemon: ceiling and thread share applied live; a draining domain serves again. */
    void update(DomainSpec next) {
        DomainSpec was = spec;
        spec = next;
        if (draining && !quitting) {
            draining = false;
            LOG.info(() -> "domain " + id + ": asked for again while draining: serving on");
        }
        if (was.appliedCeilingMiB() != next.appliedCeilingMiB()) keeper.setCeiling(0, next.appliedCeilingMiB());
        if (was.activeThreadPercentage() != next.activeThreadPercentage()) keeper.setThreads(next.activeThreadPercentage());
        changed();
    }

    /** DELETE: no new client is expected; the daemon quits at the first read with no client. */
    void drain() {
        draining = true;
        changed();
    }

    /** Restores the drain after a supervisor restart. */
    void drainingAlready() { draining = true; }

    // ---- faults ----

    /** A detector found this domain faulted. */
    void fault(Finding f) {
        List<Signal> signals = f.signals().stream().map(Domain::signal).toList();
        if (faulted != null) {
            for (Signal s : signals) if (faulted.signals.stream().noneMatch(o -> o.source().equals(s.source()))) faulted.signals.add(s);
            changed();
            return;
        }
        faulted = new Faulted(thread.now(), f.source());
        faulted.signals.addAll(signals);
        owner.metrics().domainFaulted(id);
        LOG.warning(() -> "domain " + id + ": a server faulted (" + f.source() + ": " + signals.getFirst().detail()
                + "): killing every client of its servers at once");
        List<SupervisorStatus.Server> known = keeper.servers();
        lane.ask(new DaemonSettings(control)::readServers, (read, e) -> killAll(e == null ? read : known));
        changed();
    }

    /** An Xid on this domain's GPU: ask the daemon whether its servers are still ACTIVE (a server that says otherwise faulted). */
    void askServerStatus() {
        if (faulted != null || keeper.phase() != DaemonKeeper.Phase.UP) return;
        List<Long> servers = keeper.servers().stream().filter(s -> !s.clients().isEmpty()).map(SupervisorStatus.Server::pid).toList();
        if (servers.isEmpty()) return;
        lane.ask(() -> {
            List<String> said = new ArrayList<>();
            for (long s : servers) said.add(s + " " + control.serverStatus(s));
            return said;
        }, (said, e) -> {
            if (e != null) return;
            for (String line : said) {
                if (line.endsWith(" ACTIVE")) continue;
                owner.signal(FaultSignal.forDomain(FaultSignal.SERVER_STATUS, thread.now(), id, FaultSignal.Strength.FAULT,
                        "get_server_status " + line));
            }
        });
    }

    private void killAll(List<SupervisorStatus.Server> servers) {
        if (faulted == null) return;
        List<Long> clients = servers.stream().flatMap(s -> s.clients().stream()).filter(processes::alive).toList();
        for (long pid : clients) if (processes.kill(pid)) faulted.killed.add(pid);
        owner.metrics().clientsKilled(faulted.killed.size());
        faults++; // counted with its record complete: a reader that sees the count grow reads when, from what, and whom it killed
        lastFault = record();
        LOG.warning(() -> "domain " + id + ": SIGKILL sent to the faulted clients " + faulted.killed);
        changed();
        thread.schedule(this::checkFaultOver, RECHECK);
    }

    private void checkFaultOver() {
        if (faulted == null) return;
        if (faulted.killed.stream().anyMatch(processes::alive)) {
            thread.schedule(this::checkFaultOver, RECHECK);
            return;
        }
        Duration took = Duration.between(faulted.at, thread.now());
        lastFault = record();
        faulted = null;
        LOG.info(() -> "domain " + id + ": every faulted client has exited " + took.toMillis() + " ms after the fault: serving again");
        changed();
    }

    private Fault record() {
        return new Fault(faulted.at.toString(), faulted.source, List.copyOf(faulted.killed), List.copyOf(faulted.signals));
    }

    private static Signal signal(FaultSignal s) { return new Signal(s.source(), s.at().toString(), s.detail()); }

    // ---- DaemonKeeper.Listener ----

    @Override public void changed() {
        DomainStatus s = status();
        if (s.state() == DomainState.SERVING) {
            waiting.forEach(f -> f.complete(s));
            waiting.clear();
        }
        owner.changed();
    }

    @Override public void restarted() { owner.metrics().domainRestarted(id); }

    @Override public void stalled(boolean stalled) { owner.metrics().stalled(id, stalled); }

    @Override public void read(List<SupervisorStatus.Server> servers) {
        List<Long> clients = servers.stream().flatMap(s -> s.clients().stream()).toList();
        if (faulted != null) {
            for (long pid : clients) if (processes.alive(pid) && processes.kill(pid)) faulted.killed.add(pid); // listed while faulted: a faulted client
            return;
        }
        if (draining && !quitting && clients.isEmpty()) {
            quitting = true;
            LOG.info(() -> "domain " + id + ": drained, no client left: quitting its daemon");
            keeper.stop(false).thenAccept(r -> thread.execute(() -> {
                if (r instanceof StopResult.Stopped) {
                    waiting.forEach(f -> f.completeExceptionally(new MpsException("domain " + id + " stopped")));
                    waiting.clear();
                    owner.gone(this);
                } else {
                    quitting = false; // a client came meanwhile: drain on
                }
            }));
        }
    }

    /** Completes when the domain serves (at once if it does). */
    CompletableFuture<DomainStatus> whenServing() {
        DomainStatus s = status();
        if (s.state() == DomainState.SERVING) return CompletableFuture.completedFuture(s);
        CompletableFuture<DomainStatus> f = new CompletableFuture<>();
        waiting.add(f);
        return f;
    }

    // ---- status ----

    DomainState state() {
        DaemonKeeper.Phase p = keeper.phase();
        if (p == DaemonKeeper.Phase.BACKOFF || p == DaemonKeeper.Phase.STOPPED) return DomainState.DOWN;
        if (faulted != null) return DomainState.FAULTED;
        if (p == DaemonKeeper.Phase.STALLED) return DomainState.STALLED;
        if (draining || p == DaemonKeeper.Phase.STOPPING) return DomainState.DRAINING;
        if (!keeper.ready()) return DomainState.STARTING;
        return DomainState.SERVING;
    }

    DomainStatus status() {
        DomainState state = state();
        if (state != shown) {
            shown = state;
            shownSince = thread.now();
        }
        List<SupervisorStatus.Server> servers = keeper.servers();
        return new DomainStatus(id, spec.gpu(), spec.kind(), spec.clientUid(), paths.pipeDir().toString(), state, shownSince.toString(),
                keeper.daemonPid(), servers.stream().map(SupervisorStatus.Server::pid).toList(),
                servers.stream().flatMap(s -> s.clients().stream()).toList(), keeper.ceilings().getOrDefault(0, spec.appliedCeilingMiB()),
                keeper.threads().orElse(spec.activeThreadPercentage()), faults, lastFault,
                state == DomainState.STALLED ? keeper.stalledBy() : List.of(), keeper.lastError());
    }

    /** Forwards a failure that is the domain's, not its daemon's. */
    void failed(String message) { keeper.failed("domain " + id + ": " + message); }

}
