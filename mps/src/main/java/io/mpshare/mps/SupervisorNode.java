package io.mpshare.mps;

import io.mpshare.mps.MpsSupervisor.StopResult;
import io.mpshare.mps.fault.FaultSource;
import io.mpshare.mps.fault.LogFaultSource;
import io.mpshare.mps.fault.XidFaultSource;
import io.mpshare.mps.preflight.InstanceLock;
import io.mpshare.nvml.FfmNvml;
import io.mpshare.nvml.NvmlException;

import java.io.IOException;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.logging.Logger;

/**
 * {@code mpshare mps-control} wired by hand: one colour's {@link MpsSupervisor} over the real control binary
 * ({@link ProcessMpsControl} and its foreground launcher), its API on the unix socket ({@link SupervisorSocketServer})
 * and optionally on TCP ({@link SupervisorHttp}), with the ceilings the last run of this colour kept put back at once.
 * Deliberately small (no Kubernetes client): if this process dies, every MPS client on the node dies.
 *
 * <p>Implementation notes. {@link #start} first takes the colour's lock ({@link SupervisorPreflight}: the same
 * colour twice is refused before anything changes), reads the last run's {@code status.json} before anything starts
 * ({@link #withPrevious}), binds the socket, then starts the supervisor. {@link #close} is the SIGTERM path: ask the
 * supervisor to stop, which it refuses while clients are connected; name them and ask again every second for up to
 * {@link Config#drainWait()}; if they stay, remove the ready marker (no new clients on a daemon about to end) and leave
 * the daemon running, so that the container's end takes it and those clients down (why the chart runs this DaemonSet
 * {@code OnDelete} and upgrades by blue/green). {@link Config#forceQuit()} quits at once. The shutdown path writes its
 * lines to the console it was given, not to java.util.logging, which its own shutdown hook resets meanwhile. The
 * domains' daemons are not stopped: each serves its pods on, kept in {@code <run>/<colour>/d/<id>/domain.json}, and the
 * next supervisor of this colour adopts it ({@link MpsSupervisor}). Their control commands run on virtual threads, so a
 * daemon that stops answering holds up only its own.
 */
public final class SupervisorNode implements AutoCloseable {
    private static final Logger LOG = Logger.getLogger(SupervisorNode.class.getName());

    /**
     * What {@code mpshare mps-control}'s flags say.
     *
     * @param supervisor     the daemon's settings; its ceilings are the flags', laid over the last run's ({@link #withPrevious})
     * @param binary         {@code nvidia-cuda-mps-control}; empty: PATH, {@code /usr/local/nvidia/bin}, {@code /usr/bin}
     * @param socket         the API's unix socket (mode 0600)
     * @param tcp            the API also on TCP, for hand tests; empty: off
     * @param commandTimeout how long one control command may take
     * @param forceQuit      on close, quit the daemon even while clients are connected (they fail)
     * @param drainWait      on close, how long to wait for connected clients to leave
     * @param xidEvents      read NVML's Xid events as a fault detector for the domains (a hint: never acted on alone)
     */
    public record Config(SupervisorConfig supervisor, Optional<Path> binary, Path socket, Optional<InetSocketAddress> tcp,
                         Duration commandTimeout, boolean forceQuit, Duration drainWait, boolean xidEvents) {
        public Config {
            Objects.requireNonNull(supervisor);
            Objects.requireNonNull(socket);
        }
    }

    private final Config config;
    private final MpsSupervisor supervisor;
    private final SupervisorSocketServer api;
    private final SupervisorHttp http;
    private final ScheduledExecutorService executor;
    private final ExecutorService commands;
    private final PrintStream console;
    /** The colour's lock ({@link SupervisorPreflight}), held until {@link #close}. */
    private final InstanceLock claim;

    private SupervisorNode(Config config, MpsSupervisor supervisor, SupervisorSocketServer api, SupervisorHttp http,
                           ScheduledExecutorService executor, ExecutorService commands, PrintStream console, InstanceLock claim) {
        this.claim = claim;
        this.config = config;
        this.supervisor = supervisor;
        this.api = api;
        this.http = http;
        this.executor = executor;
        this.commands = commands;
        this.console = console;
    }

    /**
     * Starts the supervisor and serves its API. Expected failures: {@link MpsException} (no binary), {@link IOException}
     * (the socket or the TCP port cannot be served), each with a message that says what to change.
     *
     * @param console where the shutdown path reports (stderr in production)
     */
    public static SupervisorNode start(Config config, PrintStream console) throws IOException {
        Path bin = MpsBinary.locate(config.binary());
        SupervisorConfig sc = config.supervisor();
        InstanceLock claim = SupervisorPreflight.mpsControl(sc.colour(), sc.runDir(), config.socket(), config.tcp()).claim();   // before anything changes
        sc = sc.withCeilings(withPrevious(sc.colour().statusFile(sc.runDir()), sc.initialCeilingsMib()));
        ProcessMpsControl control = new ProcessMpsControl(new ProcessMpsControl.Config(bin, sc.pipeDir(), sc.logDir(), config.commandTimeout()));
        ScheduledExecutorService executor = Executors.newSingleThreadScheduledExecutor(Thread.ofPlatform().name("mps-supervisor").daemon().factory());
        ExecutorService commands = Executors.newThreadPerTaskExecutor(Thread.ofVirtual().name("mps-control-", 0).factory());
        SupervisorMetrics metrics = new SupervisorMetrics(sc.colour());
        Duration timeout = config.commandTimeout();
        MpsSupervisor.Parts parts = new MpsSupervisor.Parts(ProcessMpsControl.foregroundLauncher(bin), control,
                pipe -> new ProcessMpsControl(new ProcessMpsControl.Config(bin, pipe, pipe.resolveSibling("log"), timeout)), commands,
                faultSources(config.xidEvents()), null);
        MpsSupervisor supervisor = new MpsSupervisor(sc, parts, executor, InstantSource.system(), metrics);
        SupervisorSocketServer api = new SupervisorSocketServer(supervisor, metrics, config.socket());
        SupervisorHttp http = null;
        try {
            http = config.tcp().isEmpty() ? null : new SupervisorHttp(supervisor, metrics, config.tcp().get());
            try {
                api.start();
            } catch (IOException e) {
                throw new IOException("cannot serve the supervisor socket " + api.socket() + ": " + e.getMessage(), e);
            }
        } catch (IOException | RuntimeException e) {
            if (http != null) http.close();
            supervisor.close();
            executor.shutdownNow();
            commands.shutdownNow();
            claim.close();
            throw e;
        }
        if (http != null) http.start();
        supervisor.start();
        LOG.info("mps-control " + sc.colour().id() + ": pipe " + sc.pipeDir() + ", binary " + bin + ", API on unix socket " + api.socket()
                + (http == null ? "" : " and http://" + config.tcp().get().getHostString() + ":" + http.port() + "/status"));
        return new SupervisorNode(config, supervisor, api, http, executor, commands, console, claim);
    }

    /** The domains' logs, and NVML's Xid events where NVML can be opened (a GPU node; not a test machine). */
    private static List<FaultSource> faultSources(boolean xidEvents) {
        List<FaultSource> out = new ArrayList<>(List.of(new LogFaultSource(InstantSource.system())));
        if (!xidEvents) return out;
        try {
            out.add(new XidFaultSource(FfmNvml.open(), InstantSource.system()));
        } catch (NvmlException | LinkageError e) {
            LOG.warning("no NVML here (" + e.getMessage() + "): faults are detected from the domains' logs only");
        }
        return out;
    }

    /** The API's unix socket. */
    public Path socket() { return api.socket(); }

    /**
     * The ceilings the last run of this colour kept (its {@code status.json} at {@code statusFile}), under
     * {@code flags}: a restarted mps-control puts the device plugin's last ceilings back on its new daemon before the
     * plugin next reconciles. {@code /run} is a tmpfs, so a reboot (and with it a change of GPUs) starts empty; a file
     * that cannot be read is ignored with a warning.
     */
    static Map<Integer, Long> withPrevious(Path statusFile, Map<Integer, Long> flags) {
        Map<Integer, Long> out = new TreeMap<>();
        if (Files.exists(statusFile)) {
            try {
                SupervisorStatus previous = SupervisorStatusClient.readFile(statusFile);
                out.putAll(previous.ceilingsMib());
                if (!out.isEmpty()) LOG.info("ceilings kept from the last run (" + statusFile + "): " + out);
            } catch (MpsException e) {
                LOG.warning("ignoring the last run's status " + statusFile + ": " + e.getMessage());
            }
        }
        out.putAll(flags);
        return out;
    }

    /** SIGTERM: drain the node daemon, then stop serving; the domains' daemons keep running (implementation notes above). */
    @Override public void close() {
        try {
            drain();
        } finally {
            api.close();
            if (http != null) http.close();
            supervisor.close();
            executor.shutdownNow();
            commands.shutdownNow();
            claim.close();
        }
    }

    private void drain() {
        long deadline = System.nanoTime() + config.drainWait().toNanos();
        SupervisorConfig sc = config.supervisor();
        try {
            while (true) {
                StopResult r = supervisor.stop(config.forceQuit()).get(30, TimeUnit.SECONDS);
                if (r instanceof StopResult.Stopped s) {
                    say("MPS control daemon stopped (exit " + s.exitCode() + ")");
                    return;
                }
                List<Long> clients = ((StopResult.Refused) r).clients();
                if (System.nanoTime() > deadline) {
                    Files.deleteIfExists(sc.colour().readyMarker(sc.runDir()));
                    say("shutting down without quitting the MPS control daemon: clients still connected, PIDs " + clients
                            + ". Stopping this container ends the daemon and these clients; drain them, or use --force-quit.");
                    return;
                }
                say("not quitting the MPS control daemon yet: clients connected, PIDs " + clients + "; waiting for them to leave");
                Thread.sleep(1000); // shutdown path only: waiting for clients to leave
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            say("shutdown of the MPS control daemon interrupted");
        } catch (Exception e) {
            say("shutdown of the MPS control daemon failed: " + e);
        }
    }

    private void say(String message) {
        console.println("mpshare mps-control: " + message);
    }
}
