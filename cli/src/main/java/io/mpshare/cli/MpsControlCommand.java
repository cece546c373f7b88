package io.mpshare.cli;

import io.mpshare.core.Names;
import io.mpshare.mps.Backoff;
import io.mpshare.mps.Colour;
import io.mpshare.mps.MpsException;
import io.mpshare.mps.SupervisorConfig;
import io.mpshare.mps.SupervisorNode;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.Callable;

/**
 * {@code mpshare mps-control}: supervises {@code nvidia-cuda-mps-control -f} for one colour on this node. Flags become a
 * {@link SupervisorNode.Config}; the mps module's {@link SupervisorNode} wires and runs it until SIGTERM.
 */
@Command(name = "mps-control", mixinStandardHelpOptions = true,
        description = "Runs and supervises the MPS control daemons of one colour (blue or green): the node daemon and one per fault domain; "
                + "applies per-GPU ceilings and thread shares, handles faults and stalls, serves its API "
                + "(/status, /heartbeat, /ceilings/<device>, /domains/<id>, /metrics) on the unix socket <run-dir>/<colour>/supervisor.sock.")
public final class MpsControlCommand implements Callable<Integer> {
    @Option(names = "--colour", defaultValue = Names.MPS_COLOUR_DEFAULT, description = "daemon generation: blue or green (default ${DEFAULT-VALUE})") String colour;
    @Option(names = "--run-dir", defaultValue = Names.RUN_DIR, description = "host folder for <colour>/pipe, <colour>/log, ready, status.json (default ${DEFAULT-VALUE})") Path runDir;
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
    @Option(names = "--xid-events", negatable = true, defaultValue = "true", fallbackValue = "true",
            description = "read NVML's Xid events as a fault detector for the fault domains (a hint, never acted on alone; default ${DEFAULT-VALUE})") boolean xidEvents;

    @Override public Integer call() throws Exception {
        Colour c = Colour.parse(colour);
        SupervisorConfig supervisor = SupervisorConfig.defaults(c, runDir).withVisibleDevices(visibleDevices)
                .withThreadPercentage(threads == null ? OptionalInt.empty() : OptionalInt.of(threads))
                .withCeilings(SupervisorConfig.parseCeilings(ceilings))
                .withHealthInterval(Duration.ofSeconds(Math.max(1, healthInterval)))
                .withBackoff(new Backoff(Duration.ofSeconds(1), Duration.ofSeconds(Math.max(1, backoffMax))), Duration.ofMinutes(5));
        int port = statusPort < 0 ? c.statusPort() : statusPort;
        var config = new SupervisorNode.Config(supervisor, Optional.ofNullable(binary), socket != null ? socket : c.supervisorSocket(runDir),
                port == 0 ? Optional.empty() : Optional.of(new InetSocketAddress(statusHost, port)),
                Duration.ofSeconds(commandTimeout), forceQuit, Duration.ofSeconds(drainWait), xidEvents);
        SupervisorNode node;
        try {
            node = SupervisorNode.start(config, System.err);
        } catch (MpsException e) {
            throw CliFailure.failed(e.getMessage());
        }
        Foreground.serve(node);
        return ExitCodes.OK;
    }
}
