package io.mpshare.mps;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * Starts one control daemon in the foreground ({@code nvidia-cuda-mps-control -f}). The real one is
 * {@link ProcessMpsControl#foregroundLauncher}; tests give the supervisor a fake that starts nothing.
 */
public interface DaemonLauncher {
    /** Starts a daemon serving {@code spec}'s pipe directory. */
    Daemon start(Spec spec) throws IOException;

    /**
     * @param extraEnv added to the daemon's environment, e.g. {@code CUDA_VISIBLE_DEVICES} for the node's shared GPUs
     */
    record Spec(Path pipeDir, Path logDir, Map<String, String> extraEnv) {
        public Spec { extraEnv = Map.copyOf(extraEnv); }
    }

    /** A started daemon. */
    interface Daemon {
        long pid();

        boolean isAlive();

        /** Completes with the exit code when the daemon exits. */
        CompletableFuture<Integer> onExit();

        /** SIGTERM. */
        void terminate();

        /** SIGKILL. */
        void kill();
    }
}
