package io.mpshare.mps;

import io.mpshare.core.Names;
import io.mpshare.mps.MpsException.Reason;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.logging.Logger;

/**
 * {@link MpsControl} by running {@code nvidia-cuda-mps-control}: the only class in mpshare that
 * starts that binary, both as a control client (one command per process, on stdin) and, through
 * {@link #foregroundLauncher}, as the daemon itself ({@code -f}).
 *
 * <p>Implementation notes. Each command is one short-lived process with
 * {@code CUDA_MPS_PIPE_DIRECTORY} and {@code CUDA_MPS_LOG_DIRECTORY} set; stdout and stderr are read
 * together on a virtual thread while the caller waits at most {@link Config#timeout()}; a client
 * still running then is killed ({@link Reason#TIMEOUT}). The client exits 0 even on errors
 * (FACTS.md), so {@link MpsReplies} reads the text, and every setter reads its value back
 * ({@link Reason#NOT_APPLIED} when it differs: {@code set_default_device_pinned_mem_limit 0 abc}
 * prints nothing and changes nothing). Safe for concurrent use: calls share no state.
 */
public final class ProcessMpsControl implements MpsControl {
    private static final Logger LOG = Logger.getLogger(ProcessMpsControl.class.getName());

    /** Where the daemon is reached and how long one command may take. */
    public record Config(Path binary, Path pipeDir, Path logDir, Duration timeout) {
        public Config {
            if (timeout.isNegative() || timeout.isZero()) throw new IllegalArgumentException("timeout must be positive");
        }
    }

    private final Config config;

    public ProcessMpsControl(Config config) { this.config = config; }

    public Config config() { return config; }

    @Override public boolean daemonUp() {
        try {
            run("get_server_list");
            return true;
        } catch (MpsException e) {
            if (e.reason() == Reason.DAEMON_DOWN || e.reason() == Reason.TIMEOUT) return false;
            throw e;
        }
    }

    @Override public List<Long> serverPids() {
        return MpsReplies.pids("get_server_list", run("get_server_list"));
    }

    @Override public List<Long> clientPids(long serverPid) {
        String cmd = "get_client_list " + serverPid;
        return MpsReplies.pids(cmd, run(cmd));
    }

    @Override public void setDefaultPinnedMemLimit(int device, long mib) {
        run("set_default_device_pinned_mem_limit " + device + " " + MpsReplies.memoryArg(mib));
        long back = defaultPinnedMemLimit(device);
        if (back != mib) throw notApplied("default pinned memory limit of device " + device, mib + " MiB", back + " MiB");
    }

    @Override public long defaultPinnedMemLimit(int device) {
        String cmd = "get_default_device_pinned_mem_limit " + device;
        return MpsReplies.memoryMib(cmd, run(cmd));
    }

    @Override public void setServerPinnedMemLimit(long serverPid, int device, long mib) {
        run("set_device_pinned_mem_limit " + serverPid + " " + device + " " + MpsReplies.memoryArg(mib));
        long back = serverPinnedMemLimit(serverPid, device);
        if (back != mib) throw notApplied("pinned memory limit of server " + serverPid + " device " + device, mib + " MiB", back + " MiB");
    }

    @Override public long serverPinnedMemLimit(long serverPid, int device) {
        String cmd = "get_device_pinned_mem_limit " + serverPid + " " + device;
        return MpsReplies.memoryMib(cmd, run(cmd));
    }

    @Override public void setDefaultActiveThreadPercentage(int percent) {
        if (percent < 1 || percent > 100) throw new IllegalArgumentException("active thread percentage must be 1..100, not " + percent);
        run("set_default_active_thread_percentage " + percent);
        String cmd = "get_default_active_thread_percentage";
        double back = MpsReplies.percentage(cmd, run(cmd));
        if (Math.abs(back - percent) > 0.01) throw notApplied("default active thread percentage", percent + "", back + "");
    }

    @Override public void setServerActiveThreadPercentage(long serverPid, int percent) {
        if (percent < 1 || percent > 100) throw new IllegalArgumentException("active thread percentage must be 1..100, not " + percent);
        run("set_active_thread_percentage " + serverPid + " " + percent);
        double back = serverActiveThreadPercentage(serverPid);
        if (Math.abs(back - percent) > 0.01) throw notApplied("active thread percentage of server " + serverPid, percent + "", back + "");
    }

    @Override public double serverActiveThreadPercentage(long serverPid) {
        String cmd = "get_active_thread_percentage " + serverPid;
        return MpsReplies.percentage(cmd, run(cmd));
    }

    @Override public String serverStatus(long serverPid) {
        return run("get_server_status " + serverPid).strip();
    }

    @Override public void terminateClient(long serverPid, long clientPid) {
        run("terminate_client " + serverPid + " " + clientPid);
    }

    @Override public void quit() {
        run("quit");
    }

    /** Sends one command and returns its output once checked for errors (exposed for the GPU suite and diagnostics). */
    public String run(String command) {
        ProcessBuilder pb = new ProcessBuilder(config.binary().toString()).redirectErrorStream(true);
        pb.environment().put(Names.ENV_MPS_PIPE, config.pipeDir().toString());
        pb.environment().put("CUDA_MPS_LOG_DIRECTORY", config.logDir().toString());
        Process p;
        try {
            p = pb.start();
        } catch (IOException e) {
            throw new MpsException(Reason.CANNOT_RUN, "cannot run " + config.binary() + ": " + e.getMessage(), e);
        }
        CompletableFuture<String> output = new CompletableFuture<>();
        Thread.ofVirtual().name("mps-control-reader").start(() -> output.complete(readAll(p.getInputStream())));
        try (OutputStream in = p.getOutputStream()) {
            in.write((command + "\n").getBytes(StandardCharsets.UTF_8));
        } catch (IOException e) {
            LOG.fine(() -> "control client closed stdin early: " + e.getMessage()); // it may have exited at once (daemon down)
        }
        try {
            if (!p.waitFor(config.timeout().toMillis(), TimeUnit.MILLISECONDS)) {
                p.destroyForcibly();
                throw new MpsException(Reason.TIMEOUT, "'" + command + "' got no answer within " + config.timeout() + " (pipe " + config.pipeDir() + ")");
            }
            String out = output.get(config.timeout().toMillis(), TimeUnit.MILLISECONDS);
            MpsReplies.check(command, p.exitValue(), out);
            return out;
        } catch (InterruptedException e) {
            p.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new MpsException(Reason.TIMEOUT, "'" + command + "' interrupted", e);
        } catch (ExecutionException | TimeoutException e) {
            throw new MpsException(Reason.TIMEOUT, "'" + command + "': output not read within " + config.timeout(), e);
        }
    }

    private static String readAll(InputStream in) {
        try (in) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "";
        }
    }

    private static MpsException notApplied(String what, String wanted, String got) {
        return new MpsException(Reason.NOT_APPLIED, what + ": set " + wanted + " but the daemon reads back " + got);
    }

    /**
     * The real {@link DaemonLauncher}: {@code <binary> -f} with the spec's pipe/log dirs; its output goes to the spec's
     * file (appended) or to this process's stdout. A daemon is adopted when its PID still runs the control binary and
     * started when it was recorded.
     */
    public static DaemonLauncher foregroundLauncher(Path binary) {
        return new DaemonLauncher() {
            @Override public Daemon start(Spec spec) throws IOException {
                ProcessBuilder pb = new ProcessBuilder(binary.toString(), "-f").redirectErrorStream(true).redirectInput(ProcessBuilder.Redirect.PIPE)
                        .redirectOutput(spec.output().map(o -> ProcessBuilder.Redirect.appendTo(o.toFile())).orElse(ProcessBuilder.Redirect.INHERIT));
                Map<String, String> env = pb.environment();
                env.put(Names.ENV_MPS_PIPE, spec.pipeDir().toString());
                env.put("CUDA_MPS_LOG_DIRECTORY", spec.logDir().toString());
                env.putAll(spec.extraEnv());
                return new ChildDaemon(pb.start());
            }

            @Override public Optional<Daemon> adopt(long pid, Instant startedAt) {
                return ProcessHandle.of(pid).filter(ProcessHandle::isAlive)
                        .filter(h -> h.info().startInstant().map(startedAt::equals).orElse(false))
                        .filter(h -> h.info().command().map(c -> c.endsWith(binary.getFileName().toString())).orElse(false)
                                || h.info().commandLine().map(c -> c.contains("nvidia-cuda-mps-control")).orElse(false))
                        .map(AdoptedDaemon::new);
            }
        };
    }

    /** A daemon started here: its exit code is known. */
    private record ChildDaemon(Process process) implements DaemonLauncher.Daemon {
        @Override public long pid() { return process.pid(); }

        @Override public boolean isAlive() { return process.isAlive(); }

        @Override public CompletableFuture<Integer> onExit() { return process.onExit().thenApply(Process::exitValue); }

        @Override public void terminate() { process.destroy(); }

        @Override public void kill() { process.destroyForcibly(); }

        @Override public Optional<Instant> startedAt() { return process.info().startInstant(); }
    }

    /** A daemon an earlier supervisor started: not a child, so its exit code is unknown and its exit is seen by polling. */
    private record AdoptedDaemon(ProcessHandle handle) implements DaemonLauncher.Daemon {
        @Override public long pid() { return handle.pid(); }

        @Override public boolean isAlive() { return handle.isAlive(); }

        @Override public CompletableFuture<Integer> onExit() { return handle.onExit().thenApply(h -> -1); }

        @Override public void terminate() { handle.destroy(); }

        @Override public void kill() { handle.destroyForcibly(); }

        @Override public Optional<Instant> startedAt() { return handle.info().startInstant(); }
    }
}
