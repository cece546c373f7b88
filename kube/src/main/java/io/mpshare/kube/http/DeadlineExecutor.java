package io.mpshare.kube.http;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * The executor of a JDK {@code HttpServer} that Kubernetes calls (the webhook, the extender, the node agent's probes and
 * metrics): each exchange on a virtual thread of its own, interrupted once it has run for the deadline.
 *
 * <p>Why: the JDK server hands a connection to its executor as soon as the first bytes arrive, and the exchange reads
 * the request line, the headers and the body in that thread, from a socket channel in blocking mode. With a fixed pool
 * of N workers, N clients that stop mid-header hold every worker and a real request (kubelet's probe, kube-apiserver's
 * review) waits behind them; {@code sun.net.httpserver.maxReqTime} only frees a worker after its limit, and the next
 * stalled connection takes it again. Here a stalled client costs one virtual thread's stack, never a worker another
 * request waits for; and the deadline's interrupt closes the channel under the blocked read
 * ({@code ClosedByInterruptException}), so it is cut off after {@code deadline}.
 */
public final class DeadlineExecutor implements Executor, AutoCloseable {
    private final ExecutorService threads;
    private final ScheduledExecutorService timer;
    private final Duration deadline;

    /**
     * @param name     prefix of the exchange threads' names (a thread dump shows whose they are)
     * @param deadline the longest one exchange may run, from its first byte to its answer
     * @param timer    runs the interrupts; owned from here on (shut down by {@link #close})
     */
    public DeadlineExecutor(String name, Duration deadline, ScheduledExecutorService timer) {
        Objects.requireNonNull(deadline, "deadline");
        if (deadline.isNegative() || deadline.isZero()) throw new IllegalArgumentException("exchange deadline must be positive: " + deadline);
        this.deadline = deadline;
        this.timer = Objects.requireNonNull(timer, "timer");
        this.threads = Executors.newThreadPerTaskExecutor(Thread.ofVirtual().name(name + "-", 0).factory());
    }

    /** With a timer thread of its own. */
    public DeadlineExecutor(String name, Duration deadline) {
        this(name, deadline, Executors.newSingleThreadScheduledExecutor(Thread.ofPlatform().daemon().name(name + "-deadline").factory()));
    }

    public Duration deadline() { return deadline; }

    @Override public void execute(Runnable exchange) {
        Objects.requireNonNull(exchange, "exchange");
        threads.execute(() -> {
            Thread self = Thread.currentThread();
            ScheduledFuture<?> stop;
            try {
                stop = timer.schedule(self::interrupt, deadline.toNanos(), TimeUnit.NANOSECONDS);
            } catch (RejectedExecutionException e) {
                return; // closing: the server is stopping too
            }
            try {
                exchange.run();
            } finally {
                stop.cancel(false);
            }
        });
    }

    /** Stops the timer and interrupts the exchanges still running. */
    @Override public void close() {
        timer.shutdownNow();
        threads.shutdownNow();
    }
}
