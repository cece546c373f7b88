package io.mpshare.cli;

import io.mpshare.core.Names;
import io.mpshare.host.HostRuntime;
import io.mpshare.host.api.HostClient;
import io.mpshare.mps.Backoff;
import io.mpshare.policing.ActionPolicy;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.Callable;

/**
 * {@code mpshare host}: single-host mode in the foreground (docs/host-mode.md has a systemd unit). Flags become a
 * {@link HostRuntime.Config}; the host module's {@link HostRuntime} wires and runs it until SIGTERM.
 */
@Command(name = "host", mixinStandardHelpOptions = true,
        description = "Shares this machine's GPUs through MPS without Kubernetes: NVML inventory, the MPS daemon, the ledger, the policer, and the API 'mpshare run' and 'mpshare ps' use.")
public final class HostCommand implements Callable<Integer> {
    @Option(names = "--socket", defaultValue = HostClient.DEFAULT_SOCKET, description = "API socket (mode 0660) (default ${DEFAULT-VALUE})") Path socket;
    @Option(names = "--socket-group", description = "group that may use the socket (default: the host's own group)") String group;
    @Option(names = "--state-file", defaultValue = "/var/lib/mpshare/host-state.json", description = "jobs that survive a restart (default ${DEFAULT-VALUE})") Path stateFile;
    @Option(names = "--run-dir", defaultValue = Names.RUN_DIR, description = "MPS pipe and log directories (default ${DEFAULT-VALUE})") Path runDir;
    @Option(names = "--mps-control-binary", description = "path of nvidia-cuda-mps-control (default: PATH, /usr/local/nvidia/bin, /usr/bin)") Path binary;
    @Option(names = "--context-reserve-mib", defaultValue = "" + Names.DEFAULT_CONTEXT_RESERVE_MIB, description = "CUDA context reserve added to each job's cap per GPU (default ${DEFAULT-VALUE})") long reserve;
    @Option(names = "--policy", defaultValue = "terminate", description = "policer action: event, terminate or evict (= stop the job) (default ${DEFAULT-VALUE})") String policy;
    @Option(names = "--unmanaged", defaultValue = "police", description = "GPU processes started outside 'mpshare run': police (rogue, acted on by --policy) or report (default ${DEFAULT-VALUE})") String unmanaged;
    @Option(names = "--policer-period-ms", defaultValue = "1000", description = "policer sampling period (default ${DEFAULT-VALUE})") long period;
    @Option(names = "--reap-interval-ms", defaultValue = "500", description = "how often ended jobs are freed (default ${DEFAULT-VALUE})") long reap;
    @Option(names = "--backoff-initial-ms", defaultValue = "1000", description = "first wait before the MPS daemon is restarted (default ${DEFAULT-VALUE})") long backoffInitial;
    @Option(names = "--backoff-max-seconds", defaultValue = "60", description = "longest wait between restarts (default ${DEFAULT-VALUE})") long backoffMax;
    @Option(names = "--status-port", defaultValue = "0", description = "the supervisor's /status and /metrics on 127.0.0.1; 0: off (default ${DEFAULT-VALUE})") int statusPort;

    static boolean policeUnmanaged(String v) {
        return switch (v) {
            case "police" -> true;
            case "report" -> false;
            default -> throw new IllegalArgumentException("--unmanaged must be police or report, not '" + v + "'");
        };
    }

    @Override public Integer call() throws Exception {
        var config = new HostRuntime.Config(socket, group, stateFile, runDir, Optional.ofNullable(binary), reserve, ActionPolicy.parse(policy),
                policeUnmanaged(unmanaged), Duration.ofMillis(period), Duration.ofMillis(reap),
                new Backoff(Duration.ofMillis(backoffInitial), Duration.ofSeconds(Math.max(1, backoffMax))), statusPort);
        HostRuntime host;
        try {
            host = HostRuntime.start(config);
        } catch (HostRuntime.StartException e) {
            throw CliFailure.failed(e.getMessage());
        }
        Foreground.serve(host);
        return ExitCodes.OK;
    }
}
