package io.mpshare.admission;

import java.time.Duration;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * The webhook server's executor: each exchange on its own virtual thread, interrupted once it has run for the
 * deadline. The JDK server reads the TLS handshake, the headers and the body in the exchange's thread, from a socket
 * channel in blocking mode; an interrupt closes that channel under the read (ClosedByInterruptException). So a client
 * that stops mid-handshake, mid-header or mid-body holds one virtual thread's stack for at most the deadline, and never
 * a worker another review waits for.
 */
final class DeadlineExecutor implements Executor, AutoCloseable {
    private final ExecutorService threads = Executors.newThreadPerTaskExecutor(Thread.ofVirtual().name("webhook-", 0).factory());
    private final ScheduledExecutorService timer;
    private final Duration deadline;

    /** @param timer runs the interrupts; owned (shut down by {@link #close}) */
    DeadlineExecutor(Duration deadline, ScheduledExecutorService timer) {
        if (deadline.isNegative() || deadline.isZero()) throw new IllegalArgumentException("exchange deadline must be positive: " + deadline);
        this.deadline = deadline;
        this.timer = timer;
    }

    DeadlineExecutor(Duration deadline) {
        this(deadline, Executors.newSingleThreadScheduledExecutor(Thread.ofPlatform().daemon().name("webhook-deadline").factory()));
    }

    @Override public void execute(Runnable exchange) {
        threads.execute(() -> {
            Thread self = Thread.currentThread();
            ScheduledFuture<?> stop = timer.schedule(self::interrupt, deadline.toNanos(), TimeUnit.NANOSECONDS);
            try {
                exchange.run();
            } finally {
                stop.cancel(false);
            }
        });
    }

    @Override public void close() {
        timer.shutdownNow();
        threads.shutdownNow();
    }
}
