package io.mpshare.mps;

import io.mpshare.mps.DomainStatus.Holder;
import io.mpshare.mps.MpsException.Reason;
import io.mpshare.mps.MpsSupervisor.StopResult;
import io.mpshare.mps.proc.HolderFinder;
import io.mpshare.mps.proc.Processes;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;
import java.util.logging.Logger;

/**
 * Keeps one MPS control daemon ({@code nvidia-cuda-mps-control -f}) running with its settings applied: the colour's node
 * daemon, or one fault domain's. {@link MpsSupervisor} owns one per daemon; all of them live on its one thread.
 *
 * <h2>Implementation notes</h2>
 * <b>Phases.</b> {@code STOPPED → STARTING} (launched or adopted; probing the pipe every {@code probeInterval})
 * {@code → UP} (answers; thread percentage and ceilings applied to the default and to every running server; health read
 * every {@code healthInterval}) {@code ⇄ STALLED} (stopped answering while it may have clients) and
 * {@code → BACKOFF} (it exited; relaunch after {@link Backoff#delay}); {@link #stop} leads to {@code STOPPING → STOPPED}.
 * <b>Ready</b> while UP with no ceiling pending and at most one health read in a row that timed out: one slow read, or
 * one that timed out while putting a setting back, is a loaded node, not a down daemon; the second miss in a row, or a
 * read that found nobody on the pipe, is not ready; the {@code maxMissedHealthChecks}-th judges it (below).
 *
 * <p><b>Never kill a daemon that may have clients.</b> Killing the control daemon ends every client it serves, and any
 * process that can reach its pipe directory can make it stop answering by holding about 130 connections on its
 * {@code control} socket (measured). So a daemon that stops answering (no probe answered, or
 * {@code maxMissedHealthChecks} health reads in a row) is judged: if it has a live MPS server (a live child process, or
 * a server of the last read still alive: a client can only run on a server), it is STALLED — not ready, never killed, the
 * holders of its {@code control} socket named ({@code stalledBy}) — and UP again as soon as it answers. Only a daemon
 * with no MPS server is killed and restarted: nothing runs on it, so a restart loses nothing.
 *
 * <p><b>Invariants.</b> (1) At most one daemon per keeper; a daemon's exit is matched to its launch by a generation
 * number, so a late exit of an old daemon never restarts the new one. (2) Settings change on the running daemon only,
 * never by restart: ceilings and the active thread percentage go to the default (future servers) and to each running
 * server, read back. (3) A ceiling the daemon did not answer for stays pending and is retried each health check and
 * after each start. (4) Each health check reads every server's ceiling and thread percentage back and puts back one that
 * differs: the daemon takes {@code set_*} for a server from that server's own UID, and a server that started before a
 * default changed keeps the old value.
 *
 * <p><b>Concurrency.</b> State is confined to the supervisor's thread ({@link SupervisorThread}). Control commands run
 * on this daemon's {@link Lane}; their results come back as steps. Public methods are called on the supervisor's
 * thread.
 */
final class DaemonKeeper {
    private static final Logger LOG = Logger.getLogger(DaemonKeeper.class.getName());
    /** Health reads in a row a daemon may miss and still be ready (docs/decisions/health-grace.md). */
    static final int MISSES_TOLERATED = 1;

    enum Phase { STOPPED, STARTING, UP, STALLED, BACKOFF, STOPPING }

    /** What the keeper tells its owner, on the supervisor's thread. */
    interface Listener {
        /** Anything in the published state changed. */
        void changed();

        default void restarted() {}

        default void settingRestored(String what) {}

        /** A health read answered: the servers and their clients. */
        default void read(List<SupervisorStatus.Server> servers) {}

        default void stalled(boolean stalled) {}
    }

    /** What the keeper needs besides its daemon: shared by every keeper of a supervisor. */
    record Parts(DaemonLauncher launcher, SupervisorThread thread, DaemonTimings timings, Processes processes, HolderFinder holders) {}

    private final String name;
    private final DaemonLauncher.Spec spec;
    private final MpsControl control;
    private final DaemonSettings settings;
    private final Lane lane;
    private final Parts parts;
    private final Listener listener;

    private final Map<Integer, Long> ceilings;
    private final Set<Integer> pending = new LinkedHashSet<>();
    private OptionalInt threads;

    private Phase phase = Phase.STOPPED;
    private boolean wanted;
    private boolean settingsApplied;
    private DaemonLauncher.Daemon daemon;
    private int generation;
    private long launches;
    private int failuresInARow;
    private Instant upSince;
    private String lastError;
    private Instant lastErrorAt;
    private int missed;
    private boolean unreachable; // one of the missed reads found nobody on the pipe: not slow, gone
    private String killedBecause;
    private List<SupervisorStatus.Server> servers = List.of();
    private List<Holder> stalledBy = List.of();
    private Instant stalledSince;
    private ScheduledFuture<?> next;
    private CompletableFuture<StopResult> stopping;

    DaemonKeeper(String name, DaemonLauncher.Spec spec, MpsControl control, Lane lane, Parts parts, Listener listener,
                 Map<Integer, Long> ceilings, OptionalInt threads) {
        this.name = name;
        this.spec = spec;
        this.control = control;
        this.settings = new DaemonSettings(control);
        this.lane = lane;
        this.parts = parts;
        this.listener = listener;
        this.ceilings = new TreeMap<>(ceilings);
        this.threads = threads;
    }

    // ---- what the owner reads ----

    Phase phase() { return phase; }

    long daemonPid() { return daemon == null ? -1 : daemon.pid(); }

    /** Running, answering (see {@link #answering}), every setting applied: new clients get their caps. */
    boolean ready() { return answering() && pending.isEmpty(); }

    /**
     * UP, and its health reads answered but for at most {@link #MISSES_TOLERATED} in a row that timed out: a daemon on a
     * loaded node is slow to answer now and then and answers the next read, while its servers go on capping their
     * clients. The second miss in a row, or a read that found nobody on the pipe ({@code DAEMON_DOWN}), makes it not
     * answering; a daemon that exits is not UP at once.
     */
    boolean answering() { return phase == Phase.UP && (missed == 0 || (missed <= MISSES_TOLERATED && !unreachable)); }

    long restarts() { return Math.max(0, launches - 1); }

    String lastError() { return lastError; }

    Instant lastErrorAt() { return lastErrorAt; }

    Instant upSince() { return upSince; }

    Map<Integer, Long> ceilings() { return Map.copyOf(ceilings); }

    List<Integer> pending() { return List.copyOf(pending); }

    OptionalInt threads() { return threads; }

    List<SupervisorStatus.Server> servers() { return servers; }

    List<Holder> stalledBy() { return stalledBy; }

    DaemonLauncher.Daemon daemon() { return daemon; }

    // ---- commands from the owner ----

    /** Starts the daemon (it is kept running until {@link #stop}). */
    void start() {
        if (phase != Phase.STOPPED) return;
        wanted = true;
        launch();
    }

    /** Takes over a daemon a previous supervisor started (it still runs): probed, its settings applied, kept as if launched here. */
    void adopt(DaemonLauncher.Daemon running) {
        wanted = true;
        launches++;
        LOG.info(() -> name + ": adopting the running control daemon, pid " + running.pid() + ", pipe " + spec.pipeDir());
        track(running);
    }

    /**
     * Sets the server ceiling of GPU {@code device} on the running daemon (default and every server), or stores it for the
     * next start. The future fails when the daemon answered and refused (the previous ceiling is kept, the daemon stays
     * ready: a bad request must not make the node unready) or did not answer (the ceiling stays pending).
     */
    CompletableFuture<Void> setCeiling(int device, long mib) {
        Long previous = ceilings.put(device, mib);
        boolean wasPending = !pending.add(device);
        CompletableFuture<Void> done = new CompletableFuture<>();
        if (phase != Phase.UP) {
            listener.changed();
            return CompletableFuture.completedFuture(null);
        }
        lane.ask(() -> { settings.applyCeiling(device, mib); return null; }, (v, e) -> {
            if (e == null) {
                pending.remove(device);
                done.complete(null);
            } else if (e instanceof MpsException me && !transientFailure(me)) {
                if (previous == null) ceilings.remove(device); else ceilings.put(device, previous);
                if (!wasPending) pending.remove(device);
                MpsException refused = new MpsException(me.reason(), "ceiling " + mib + " MiB for GPU " + device + " rejected, "
                        + (previous == null ? "none kept" : previous + " MiB kept") + ": " + me.getMessage(), me);
                failed(refused.getMessage());
                done.completeExceptionally(refused);
            } else {
                failed(e.getMessage());
                done.completeExceptionally(e); // stays pending
            }
            listener.changed();
        });
        return done;
    }

    /** Sets the active thread percentage of the default and of every running server (or stores it for the next start). */
    CompletableFuture<Void> setThreads(int percent) {
        threads = OptionalInt.of(percent);
        CompletableFuture<Void> done = new CompletableFuture<>();
        if (phase != Phase.UP) return CompletableFuture.completedFuture(null);
        lane.ask(() -> { settings.applyThreadPercentage(percent); return null; }, (v, e) -> {
            if (e == null) done.complete(null);
            else {
                failed("active thread percentage " + percent + ": " + e.getMessage());
                done.completeExceptionally(e);
            }
            listener.changed();
        });
        return done;
    }

    /**
     * Stops the daemon with {@code quit}. Refused while clients are connected unless {@code force} (quitting ends them),
     * and refused while the daemon does not answer but may have clients. A daemon not gone after {@code quitTimeout} gets
     * SIGTERM, then SIGKILL.
     */
    CompletableFuture<StopResult> stop(boolean force) {
        if (daemon == null) {
            wanted = false;
            cancelNext();
            phase = Phase.STOPPED;
            listener.changed();
            return CompletableFuture.completedFuture(new StopResult.Stopped(-1));
        }
        if (phase == Phase.STOPPING) return stopping;
        CompletableFuture<StopResult> result = new CompletableFuture<>();
        lane.ask(settings::readServers, (read, e) -> {
            if (daemon == null) {
                result.complete(new StopResult.Stopped(-1));
                return;
            }
            List<Long> clients;
            if (e == null) {
                servers = read;
                clients = read.stream().flatMap(s -> s.clients().stream()).toList();
            } else {
                clients = mayHaveClients() ? aliveClients() : List.of();
                if (!force && mayHaveClients()) {
                    LOG.warning(name + ": not quitting: the daemon does not answer (" + e.getMessage() + ") and its MPS server runs");
                    result.complete(new StopResult.Refused(clients));
                    return;
                }
            }
            if (!clients.isEmpty() && !force) {
                LOG.warning(name + ": not quitting the MPS control daemon: " + clients.size() + " client(s) connected, quitting would end them: PIDs " + clients);
                listener.changed();
                result.complete(new StopResult.Refused(clients));
                return;
            }
            if (!clients.isEmpty()) LOG.warning(name + ": forced quit with " + clients.size() + " client(s) connected, they will fail: PIDs " + clients);
            quit().whenComplete((r, x) -> result.complete(r));
        });
        return result;
    }

    private CompletableFuture<StopResult> quit() {
        wanted = false;
        cancelNext();
        phase = Phase.STOPPING;
        stopping = new CompletableFuture<>();
        listener.changed(); // not ready from here on
        DaemonLauncher.Daemon d = daemon;
        lane.ask(() -> { control.quit(); return null; }, (v, e) -> {
            if (e != null) {
                LOG.warning(name + ": quit failed (" + e.getMessage() + "): sending SIGTERM");
                d.terminate();
            }
        });
        schedule(() -> {
            if (d.isAlive()) {
                LOG.warning(name + ": the control daemon is still running " + parts.timings().quitTimeout() + " after quit: SIGTERM, SIGKILL after as long again");
                d.terminate();
                schedule(() -> { if (d.isAlive()) d.kill(); }, parts.timings().quitTimeout());
            }
        }, parts.timings().quitTimeout());
        return stopping;
    }

    // ---- launch and probe ----

    private void launch() {
        next = null;
        if (!wanted || phase == Phase.STOPPING || phase == Phase.UP || phase == Phase.STARTING || phase == Phase.STALLED) return;
        if (launches++ > 0) listener.restarted();
        phase = Phase.STARTING; // no daemon yet: asking whether one already answers on the pipe
        try {
            Files.createDirectories(spec.pipeDir());
            Files.createDirectories(spec.logDir());
        } catch (IOException e) {
            startFailed("could not start the control daemon: " + e.getMessage());
            return;
        }
        lane.ask(control::daemonUp, (up, e) -> {
            if (!wanted || daemon != null) return;
            if (e == null && up) {
                startFailed("could not start the control daemon: another MPS control daemon already answers on " + spec.pipeDir()
                        + " (left from an earlier run?): not starting a second one over it");
                return;
            }
            DaemonLauncher.Daemon started;
            try {
                started = parts.launcher().start(spec);
            } catch (IOException | RuntimeException x) {
                startFailed("could not start the control daemon: " + x.getMessage());
                return;
            }
            LOG.info(() -> name + ": started nvidia-cuda-mps-control -f, pid " + started.pid() + ", pipe " + spec.pipeDir());
            track(started);
        });
    }

    private void startFailed(String message) {
        failed(message);
        failuresInARow++;
        scheduleRestart();
    }

    private void track(DaemonLauncher.Daemon d) {
        daemon = d;
        int g = ++generation;
        phase = Phase.STARTING;
        missed = 0;
        unreachable = false;
        settingsApplied = false;
        d.onExit().whenComplete((code, err) -> parts.thread().execute(() -> onExit(g, code == null ? -1 : code)));
        schedule(() -> probe(g, 1), parts.timings().probeInterval());
        listener.changed();
    }

    private void probe(int g, int attempt) {
        if (g != generation || phase != Phase.STARTING) return;
        lane.ask(control::daemonUp, (up, e) -> {
            if (g != generation || phase != Phase.STARTING) return;
            if (e == null && up) applySettings(g);
            else if (attempt >= parts.timings().maxProbes()) silent(g, "it did not answer on " + spec.pipeDir() + " after " + attempt + " probes");
            else schedule(() -> probe(g, attempt + 1), parts.timings().probeInterval());
        });
    }

    private void applySettings(int g) {
        Map<Integer, Long> want = Map.copyOf(ceilings);
        OptionalInt wantThreads = threads;
        pending.addAll(want.keySet());
        lane.ask(() -> {
            wantThreads.ifPresent(settings::applyThreadPercentage);
            for (Map.Entry<Integer, Long> c : want.entrySet()) settings.applyCeiling(c.getKey(), c.getValue());
            return settings.readServers();
        }, (read, e) -> {
            if (g != generation || phase != Phase.STARTING) return;
            if (e != null) {
                failed("applying settings after start: " + e.getMessage());
                schedule(() -> probe(g, 1), parts.timings().backoff().delay(1));
                listener.changed();
                return;
            }
            want.forEach((d, mib) -> { if (mib.equals(ceilings.get(d))) pending.remove(d); });
            phase = Phase.UP;
            settingsApplied = true;
            upSince = parts.thread().now();
            missed = 0;
            unreachable = false;
            servers = read;
            LOG.info(() -> name + ": MPS control daemon up, settings applied: active thread percentage "
                    + (wantThreads.isPresent() ? wantThreads.getAsInt() + " %" : "not set (MPS default 100 %)")
                    + ", ceilings " + (want.isEmpty() ? "none" : ceilingText(want)));
            listener.read(read);
            listener.changed();
            schedule(() -> healthCheck(g), parts.timings().healthInterval());
        });
    }

    // ---- running ----

    private void healthCheck(int g) {
        if (g != generation || (phase != Phase.UP && phase != Phase.STALLED)) return;
        if (lane.busy()) { // the last read has not come back yet (a daemon that does not answer holds its lane for the command timeout)
            schedule(() -> healthCheck(g), parts.timings().healthInterval());
            return;
        }
        Map<Integer, Long> applied = new TreeMap<>(ceilings);
        Set<Integer> retry = new HashSet<>(pending);
        OptionalInt wantThreads = threads;
        lane.ask(() -> round(applied, retry, wantThreads), (r, e) -> {
            if (g != generation || (phase != Phase.UP && phase != Phase.STALLED)) return;
            if (e == null) answered(g, r);
            else if (e instanceof MpsException me && transientFailure(me)) notAnswering(g, me);
            else failed("health check: " + e.getMessage());
            listener.changed();
            schedule(() -> healthCheck(g), parts.timings().healthInterval());
        });
    }

    /** One health read, on the lane: servers and clients, pending ceilings, settings put back where they differ. */
    private Round round(Map<Integer, Long> want, Set<Integer> retry, OptionalInt wantThreads) {
        List<SupervisorStatus.Server> read = settings.readServers();
        Set<Integer> appliedNow = new HashSet<>();
        for (int device : retry) {
            settings.applyCeiling(device, want.get(device));
            appliedNow.add(device);
        }
        List<Long> pids = read.stream().map(SupervisorStatus.Server::pid).toList();
        Map<Integer, Long> check = new TreeMap<>(want);
        retry.forEach(check::remove);
        List<String> restored = new ArrayList<>(settings.restoreCeilings(pids, check));
        wantThreads.ifPresent(p -> restored.addAll(settings.restoreThreadPercentage(pids, p)));
        return new Round(read, appliedNow, restored);
    }

    private record Round(List<SupervisorStatus.Server> servers, Set<Integer> applied, List<String> restored) {}

    private void answered(int g, Round r) {
        if (phase == Phase.STALLED) {
            Duration d = Duration.between(stalledSince, parts.thread().now());
            LOG.warning(name + ": the control daemon answers again after " + d.toMillis() + " ms (it was stalled by " + describe(stalledBy) + ")");
            phase = Phase.UP;
            stalledBy = List.of();
            stalledSince = null;
            listener.stalled(false);
            if (!settingsApplied) { // adopted while stalled: its settings were never applied
                phase = Phase.STARTING;
                applySettings(g);
                return;
            }
        }
        missed = 0;
        unreachable = false;
        servers = r.servers();
        r.applied().forEach(pending::remove);
        for (String line : r.restored()) {
            listener.settingRestored(line);
            LOG.warning(() -> name + ": setting changed outside the supervisor, put back: " + line
                    + " (a client running as that server's UID can, or the server started before the default changed)");
        }
        listener.read(servers);
    }

    private void notAnswering(int g, MpsException e) {
        failed("health check: " + e.getMessage());
        if (e.reason() == Reason.DAEMON_DOWN) unreachable = true;
        if (++missed >= parts.timings().maxMissedHealthChecks()) silent(g, "it stopped answering for " + missed + " health checks");
    }

    /**
     * The daemon does not answer: STALLED while it may have clients (never killed for it), else killed and restarted.
     * Holders are looked up on the lane ({@code /proc} is read).
     */
    private void silent(int g, String why) {
        if (!mayHaveClients()) {
            killedBecause = why + " and it has no MPS server, so no client: a restart loses nothing";
            failed(name + ": killing the control daemon: " + killedBecause);
            daemon.kill(); // its exit schedules the restart
            return;
        }
        boolean first = phase != Phase.STALLED;
        if (first) {
            phase = Phase.STALLED;
            stalledSince = parts.thread().now();
            listener.stalled(true);
            schedule(() -> healthCheck(g), parts.timings().healthInterval());
        }
        long pid = daemon.pid();
        Set<Long> exclude = new HashSet<>(servers.stream().map(SupervisorStatus.Server::pid).toList());
        exclude.addAll(parts.processes().liveChildren(pid));
        Path socket = spec.pipeDir().resolve("control");
        lane.ask(() -> parts.holders().find(socket, pid, exclude), (found, e) -> {
            if (g != generation || phase != Phase.STALLED) return;
            stalledBy = found == null ? List.of() : found;
            failed(name + ": the control daemon stopped answering (" + why + ") while it may have clients: NOT killing it (that would end "
                    + "them); stalled by " + describe(stalledBy));
            listener.changed();
        });
    }

    /**
     * A client can only run on a live MPS server: a live child of the daemon running {@code nvidia-cuda-mps-server} (only the
     * daemon starts its children, so the name is the daemon's word), or a server (or client) of the last read still alive.
     */
    private boolean mayHaveClients() {
        if (daemon == null) return false;
        Processes p = parts.processes();
        boolean serverChild = p.liveChildren(daemon.pid()).stream().anyMatch(c -> p.command(c).orElse("").contains("mps-server"));
        return serverChild || servers.stream().anyMatch(s -> p.alive(s.pid()) || s.clients().stream().anyMatch(p::alive));
    }

    private List<Long> aliveClients() {
        return servers.stream().flatMap(s -> s.clients().stream()).filter(parts.processes()::alive).toList();
    }

    private void onExit(int g, int code) {
        if (g != generation) return;
        cancelNext();
        long pid = daemon == null ? -1 : daemon.pid();
        daemon = null;
        servers = List.of();
        if (phase == Phase.STALLED) listener.stalled(false);
        stalledBy = List.of();
        if (phase == Phase.STOPPING) {
            phase = Phase.STOPPED;
            LOG.info(() -> name + ": MPS control daemon (pid " + pid + ") stopped, exit code " + code);
            listener.changed();
            stopping.complete(new StopResult.Stopped(code));
            return;
        }
        boolean wasStable = upSince != null && Duration.between(upSince, parts.thread().now()).compareTo(parts.timings().stableAfter()) >= 0;
        failuresInARow = wasStable ? 1 : failuresInARow + 1;
        upSince = null;
        failed(name + ": the control daemon (pid " + pid + ") exited with code " + code
                + (killedBecause == null ? "" : ", killed by the supervisor because " + killedBecause));
        killedBecause = null;
        scheduleRestart();
    }

    private void scheduleRestart() {
        phase = Phase.BACKOFF;
        Duration delay = parts.timings().backoff().delay(failuresInARow);
        LOG.warning(() -> name + ": restarting the MPS control daemon in " + delay.toMillis() + " ms (failure " + failuresInARow + " in a row)");
        schedule(this::launch, delay);
        listener.changed();
    }

    // ---- helpers ----

    private static boolean transientFailure(MpsException e) { return e.reason() == Reason.DAEMON_DOWN || e.reason() == Reason.TIMEOUT; }

    void failed(String message) {
        lastError = message;
        lastErrorAt = parts.thread().now();
        LOG.warning(message);
    }

    private static String describe(List<Holder> holders) {
        if (holders.isEmpty()) return "no process found holding its control socket";
        StringBuilder sb = new StringBuilder();
        for (Holder h : holders.subList(0, Math.min(3, holders.size())))
            sb.append(sb.isEmpty() ? "" : ", ").append("PID ").append(h.pid()).append(" (UID ").append(h.uid()).append(", ")
                    .append(h.connections()).append(" connections, ").append(h.command()).append(')');
        return sb.toString();
    }

    /** {@code GPU 0: 8 GiB, GPU 1: 1.50 GiB} */
    static String ceilingText(Map<Integer, Long> ceilings) {
        StringBuilder sb = new StringBuilder();
        ceilings.forEach((d, mib) -> sb.append(sb.isEmpty() ? "" : ", ").append("GPU ").append(d).append(": ")
                .append(mib % 1024 == 0 ? (mib / 1024) + " GiB" : mib + " MiB"));
        return sb.toString();
    }

    private void schedule(Runnable r, Duration delay) {
        cancelNext();
        next = parts.thread().schedule(r, delay);
    }

    private void cancelNext() {
        if (next != null) next.cancel(false);
        next = null;
    }
}
