package io.mpshare.cli;

import java.util.concurrent.CountDownLatch;

/**
 * How a server subcommand runs once its module's root has started: in the foreground until SIGTERM (or SIGINT), then
 * the root is closed on the command's own thread while the JVM's shutdown waits for that close to finish (a drain, the
 * sockets leaving kubelet's folder). The close bounds itself; a hung one is ended by the orchestrator's SIGKILL.
 */
final class Foreground {
    private Foreground() {}

    /** Blocks until the process is asked to stop, then closes {@code started} and returns. */
    static void serve(AutoCloseable started) throws Exception {
        CountDownLatch stop = new CountDownLatch(1);
        CountDownLatch closed = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            stop.countDown();
            try {
                closed.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "mpshare-stop"));
        try {
            stop.await();
        } finally {
            try {
                started.close();
            } finally {
                closed.countDown();
            }
        }
    }
}
