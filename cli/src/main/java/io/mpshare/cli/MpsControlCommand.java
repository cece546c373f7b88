package io.mpshare.cli;

import io.mpshare.mps.Backoff;
import io.mpshare.mps.Colour;
import io.mpshare.mps.MpsBinary;
import io.mpshare.mps.MpsException;
import io.mpshare.mps.MpsSupervisor;
import io.mpshare.mps.MpsSupervisor.StopResult;
import io.mpshare.mps.ProcessMpsControl;
import io.mpshare.mps.SupervisorConfig;
import io.mpshare.mps.SupervisorHttp;
import io.mpshare.mps.SupervisorMetrics;
import io.mpshare.mps.SupervisorPreflight;
import io.mpshare.mps.SupervisorSocketServer;
import io.mpshare.mps.SupervisorStatus;
import io.mpshare.mps.SupervisorStatusClient;
import io.mpshare.mps.preflight.InstanceLock;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.time.InstantSource;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.logging.Logger;

/**
 * {@code mpshare mps-control}: supervises {@code nvidia-cuda-mps-control -f} for one colour on this node.
 * Deliberately small (no Kubernetes client): if this process dies, every MPS client on the node dies.
 */
@Command(name = "mps-control", mixinStandardHelpOptions = true,
        description = "Runs and supervises the MPS control daemon (one colour: blue or green), applies per-GPU ceilings, serves its API "
                + "(/status, /heartbeat, /ceilings/<device>, /metrics) on the unix socket <run-dir>/<colour>/supervisor.sock.")
public final class MpsControlCommand implements Callable<Integer> {
    private static final Logger LOG = Logger.getLogger(MpsControlCommand.class.getName());

    @Option(names = "--colour", defaultValue = "blue", description = "daemon generation: blue or green (default ${DEFAULT-VALUE})") String colour;
    @Option(names = "--run-dir", defaultValue = "/run/mpshare", description = "host folder for <colour>/pipe, <colour>/log, ready, status.json (default ${DEFAULT-VALUE})") Path runDir;
    @Option(names = "--mps-control-binary", description = "path of nvidia-cuda-mps-control (default: PATH, /usr/local/nvidia/bin, /usr/bin)") Path binary;
    @Option(names = "--visible-devices", defaultValue = "", description = "CUDA_VISIBLE_DEVICES for the daemon: the node's shared GPUs (default: all)") String visibleDevices;
    @Option(names = "--default-active-thread-percentage", description = "set_default_active_thread_percentage after each start (1-100)") Integer threads;
    @Option(names = "--ceiling", description = "per-GPU server ceiling DEVICE=SIZE, e.g. 0=8192 (MiB) or 0=8G; repeatable") List<String> ceilings = List.of();
    @Option(names = "--supervisor-socket", description = "the API's unix socket, mode 0600 (default <run-dir>/<colour>/supervisor.sock; the device plugin looks there)") Path socket;
    @Option(names = "--status-host", defaultValue = "127.0.0.1", description = "address of the optional TCP API (default ${DEFAULT-VALUE})") String statusHost;
    @Option(names = "--status-port", defaultValue = "0", description = "also serve the API over TCP for hand tests: -1 the colour's port (blue 39997, green 39998), N a port, 0 off (default ${DEFAULT-VALUE}); "
            + "anything in that network namespace can then change ceilings") int statusPort;
    @Option(names = "--command-timeout-seconds", defaultValue = "10", description = "timeout of one control command (default ${DEFAULT-VALUE})") int commandTimeout;
    @Option(names = "--backoff-max-seconds", defaultValue = "60", description = "longest wait between restarts (default ${DEFAULT-VALUE})") int backoffMax;
    @Option(names = "--health-interval-seconds", defaultValue = "1", description = "how often servers, clients and server ceilings are read (a changed ceiling is put back); a daemon's exit is seen at once regardless (default ${DEFAULT-VALUE})") int healthInterval;
    @Option(names = "--force-quit", description = "on SIGTERM, quit the daemon even while clients are connected (they fail)") boolean forceQuit;
    @Option(names = "--drain-wait-seconds", defaultValue = "20", description = "on SIGTERM, how long to wait for connected clients to leave before giving up (default ${DEFAULT-VALUE})") int drainWait;

    @Override public Integer call() throws Exception {
        Colour c;
        try {
            c = Colour.parse(colour);
        } catch (IllegalArgumentException e) {
            System.err.println("mpshare mps-control: " + e.getMessage());
            return 2;
        }
        Path bin;
        try {
            bin = MpsBinary.locate(Optional.ofNullable(binary));
        } catch (MpsException e) {
            System.err.println("mpshare mps-control: " + e.getMessage());
            return 1;
        }
        SupervisorConfig config;
        try {
            config = SupervisorConfig.defaults(c, runDir).withVisibleDevices(visibleDevices)
                .withThreadPercentage(threads == null ? OptionalInt.empty() : OptionalInt.of(threads))
                .withCeilings(withPrevious(c, SupervisorConfig.parseCeilings(ceilings)))
                .withHealthInterval(Duration.ofSeconds(Math.max(1, healthInterval)))
                .withBackoff(new Backoff(Duration.ofSeconds(1), Duration.ofSeconds(Math.max(1, backoffMax))), Duration.ofMinutes(5));
        } catch (IllegalArgumentException e) {
            System.err.println("mpshare mps-control: " + e.getMessage());
            return 2;
        }
        int port = statusPort < 0 ? c.statusPort() : statusPort;
        Path socketPath = socket != null ? socket : c.supervisorSocket(runDir);
        InstanceLock claim = SupervisorPreflight.mpsControl(c, runDir, socketPath,   // the same colour twice: refuse before anything
                port == 0 ? Optional.empty() : Optional.of(new InetSocketAddress(statusHost, port))).claim();
        ProcessMpsControl control = new ProcessMpsControl(new ProcessMpsControl.Config(bin, config.pipeDir(), config.logDir(), Duration.ofSeconds(commandTimeout)));
        ScheduledExecutorService executor = Executors.newSingleThreadScheduledExecutor(Thread.ofPlatform().name("mps-supervisor").daemon().factory());
        SupervisorMetrics metrics = new SupervisorMetrics(c);
        MpsSupervisor supervisor = new MpsSupervisor(config, ProcessMpsControl.foregroundLauncher(bin), control, executor, InstantSource.system(), metrics);
        SupervisorHttp http = port == 0 ? null : new SupervisorHttp(supervisor, metrics, new InetSocketAddress(statusHost, port));
        SupervisorSocketServer api = new SupervisorSocketServer(supervisor, metrics, socketPath);
        try {
            api.start();
        } catch (java.io.IOException e) {
            System.err.println("mpshare mps-control: cannot serve the supervisor socket " + api.socket() + ": " + e.getMessage());
            executor.shutdownNow();
            claim.close();
            return 1;
        }
        CountDownLatch done = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            shutdown(supervisor);
            api.close();
            if (http != null) http.close();
            executor.shutdownNow();
            claim.close();
            done.countDown();
        }, "mps-control-shutdown"));
        if (http != null) http.start();
        supervisor.start();
        LOG.info("mps-control " + c.id() + ": pipe " + config.pipeDir() + ", binary " + bin + ", API on unix socket " + api.socket()
                + (http == null ? "" : " and http://" + statusHost + ":" + http.port() + "/status"));
        done.await();
        return 0;
    }

    /**
     * The ceilings the last run of this colour kept (its status.json), under the {@code --ceiling} flags: a restarted
     * mps-control puts the device plugin's last ceilings back on its new daemon before the plugin next reconciles.
     * /run is a tmpfs, so a reboot (and with it a change of GPUs) starts empty.
     */
    private Map<Integer, Long> withPrevious(Colour c, Map<Integer, Long> flags) {
        Path file = c.statusFile(runDir);
        Map<Integer, Long> out = new TreeMap<>();
        if (java.nio.file.Files.exists(file)) {
            try {
                SupervisorStatus previous = SupervisorStatusClient.readFile(file);
                out.putAll(previous.ceilingsMib());
                if (!out.isEmpty()) LOG.info("ceilings kept from the last run (" + file + "): " + out);
            } catch (MpsException e) {
                LOG.warning("ignoring the last run's status " + file + ": " + e.getMessage());
            }
        }
        out.putAll(flags);
        return out;
    }

    /** SIGTERM: quit unless clients are connected; then wait up to --drain-wait-seconds for them, and name them if they stay. */
    private void shutdown(MpsSupervisor supervisor) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(drainWait);
        try {
            while (true) {
                StopResult r = supervisor.stop(forceQuit).get(30, TimeUnit.SECONDS);
                if (r instanceof StopResult.Stopped s) {
                    say("MPS control daemon stopped (exit " + s.exitCode() + ")");
                    return;
                }
                List<Long> clients = ((StopResult.Refused) r).clients();
                if (System.nanoTime() > deadline) {
                    java.nio.file.Files.deleteIfExists(Colour.parse(colour).readyMarker(runDir)); // no new clients on a daemon about to end
                    say("shutting down without quitting the MPS control daemon: clients still connected, PIDs " + clients
                            + ". Stopping this container ends the daemon and these clients; drain them, or use --force-quit.");
                    return;
                }
                say("not quitting the MPS control daemon yet: clients connected, PIDs " + clients + "; waiting for them to leave");
                Thread.sleep(1000); // shutdown path only: waiting for clients to leave
            }
        } catch (Exception e) {
            say("shutdown of the MPS control daemon failed: " + e);
        }
    }

    /** java.util.logging is reset by its own shutdown hook, so the shutdown path writes to stderr itself. */
    private static void say(String message) {
        System.err.println("mpshare mps-control: " + message);
    }
}
