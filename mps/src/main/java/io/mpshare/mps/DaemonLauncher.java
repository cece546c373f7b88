package io.mpshare.mps;

import io.mpshare.mps.proc.ControlSocketHolders;
import io.mpshare.mps.proc.HolderFinder;
import io.mpshare.mps.proc.ProcProcesses;
import io.mpshare.mps.proc.Processes;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * Starts control daemons in the foreground ({@code nvidia-cuda-mps-control -f}) on one machine, finds one a previous
 * supervisor started ({@link #adopt}), and sees that machine's processes. The real one is
 * {@link ProcessMpsControl#foregroundLauncher}; tests give the supervisor a fake that starts nothing.
 */
public interface DaemonLauncher {
    /** Starts a daemon serving {@code spec}'s pipe directory. */
    Daemon start(Spec spec) throws IOException;

    /**
     * The daemon with {@code pid} that started at {@code startedAt}, if it still runs (a PID reused by another process, or
     * one that is not a control daemon, is not it). Empty where daemons cannot be adopted.
     */
    default Optional<Daemon> adopt(long pid, Instant startedAt) { return Optional.empty(); }

    /** The processes of the machine the daemons run on. */
    default Processes processes() { return ProcProcesses.system(); }

    /** Who holds a daemon's {@code control} socket on that machine. */
    default HolderFinder holders() { return ControlSocketHolders.system(); }

    /**
     * @param extraEnv added to the daemon's environment, e.g. {@code CUDA_VISIBLE_DEVICES} for the node's shared GPUs
     * @param output   where the daemon's stdout and stderr go (appended), or empty: this process's stdout
     */
    record Spec(Path pipeDir, Path logDir, Map<String, String> extraEnv, Optional<Path> output) {
        public Spec {
            extraEnv = Map.copyOf(extraEnv);
            output = output == null ? Optional.empty() : output;
        }

        public Spec(Path pipeDir, Path logDir, Map<String, String> extraEnv) { this(pipeDir, logDir, extraEnv, Optional.empty()); }
    }

    /** A started daemon. */
    interface Daemon {
        long pid();

        boolean isAlive();

        /** Completes with the exit code when the daemon exits (-1 where it cannot be known: an adopted daemon). */
        CompletableFuture<Integer> onExit();

        /** SIGTERM. */
        void terminate();

        /** SIGKILL. */
        void kill();

        /** When it started: with the PID, what tells it from a later process that reuses the PID. */
        default Optional<Instant> startedAt() { return Optional.empty(); }
    }
}
