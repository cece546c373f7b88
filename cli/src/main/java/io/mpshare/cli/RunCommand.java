package io.mpshare.cli;

import io.mpshare.host.JobRunner;
import io.mpshare.host.api.HostClient;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;

/** {@code mpshare run --gpu-mem 7 -- CMD ARGS...}: runs CMD as an MPS client with its caps; exits with CMD's code. */
@Command(name = "run", mixinStandardHelpOptions = true,
        description = "Runs a command on a shared GPU of this host with a GPU memory cap (and optionally a share of the SMs); needs 'mpshare host' running.")
public final class RunCommand implements Callable<Integer> {
    @Option(names = "--gpu-mem", required = true, description = "GPU memory: GiB (7), or with a unit (7G, 7168M); over all --gpu-count GPUs") String mem;
    @Option(names = "--gpu-core", defaultValue = "0", description = "share of each GPU's SMs, 1-100 (default: not limited)") int core;
    @Option(names = "--gpu-count", defaultValue = "1", description = "GPUs to spread over (default ${DEFAULT-VALUE})") int count;
    @Option(names = "--wait", description = "wait as long as it takes for room (or for the MPS daemon)") boolean waitForever;
    @Option(names = "--timeout", description = "wait up to this long for room, e.g. 30s, 5m, 1h") String timeout;
    @Option(names = "--socket", defaultValue = HostClient.DEFAULT_SOCKET, description = "the host's API socket (default ${DEFAULT-VALUE})") Path socket;
    @Parameters(arity = "1..*", paramLabel = "CMD", description = "the command and its arguments (after --)") List<String> command;

    @Override public Integer call() throws Exception {
        long mib;
        Duration wait;
        try {
            mib = parseMib(mem);
            wait = waitForever ? Duration.ofDays(36500) : timeout == null ? Duration.ZERO : parseDuration(timeout);
        } catch (IllegalArgumentException e) {
            throw CliFailure.usage(e.getMessage());
        }
        try {
            return new JobRunner(new HostClient(socket), System.err, Duration.ofMillis(500)).run(mib, core, count, wait, command);
        } catch (HostClient.Unreachable e) {
            throw new CliFailure(JobRunner.REFUSED, e.getMessage());
        }
    }

    static long parseMib(String s) {
        String v = s.strip().toUpperCase(Locale.ROOT);
        try {
            if (v.endsWith("M") || v.endsWith("MI") || v.endsWith("MIB")) return Long.parseLong(v.replaceAll("M(I|IB)?$", ""));
            double gib = Double.parseDouble(v.replaceAll("G(I|IB)?$", ""));
            return Math.round(gib * 1024);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("--gpu-mem '" + s + "': write GiB (7, 7G, 1.5G) or MiB (7168M)");
        }
    }

    static Duration parseDuration(String s) {
        String v = s.strip().toLowerCase(Locale.ROOT);
        try {
            if (v.endsWith("ms")) return Duration.ofMillis(Long.parseLong(v.substring(0, v.length() - 2)));
            long n = Long.parseLong(v.substring(0, v.length() - 1));
            return switch (v.charAt(v.length() - 1)) {
                case 's' -> Duration.ofSeconds(n);
                case 'm' -> Duration.ofMinutes(n);
                case 'h' -> Duration.ofHours(n);
                default -> Duration.ofSeconds(Long.parseLong(v));
            };
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("--timeout '" + s + "': write 30s, 5m or 1h");
        }
    }
}
