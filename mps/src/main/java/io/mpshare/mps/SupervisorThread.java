package io.mpshare.mps;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Supplier;
import java.util.logging.Logger;

/**
 * The supervisor's one thread: every piece of supervisor state is touched only in a step run here (a single-threaded
 * {@link ScheduledExecutorService}, a manual one in tests). It marks when the current step began, and when it last
 * finished a control command, so that {@link #busyFor} can tell a busy thread from a hung one.
 */
final class SupervisorThread implements Executor {
    private static final Logger LOG = Logger.getLogger(SupervisorThread.class.getName());
    private final ScheduledExecutorService executor;
    private final InstantSource clock;
    private final Consumer<RuntimeException> onFailure;
    private volatile Instant stepStarted;

    /** @param onFailure told, on this thread, of a step that threw (a bug: it is logged and published, the thread goes on) */
    SupervisorThread(ScheduledExecutorService executor, InstantSource clock, Consumer<RuntimeException> onFailure) {
        this.executor = executor;
        this.clock = clock;
        this.onFailure = onFailure;
    }

    InstantSource clock() { return clock; }

    Instant now() { return clock.instant(); }

    /** Runs {@code r} as a step after {@code delay}; null when the executor is shut down. */
    ScheduledFuture<?> schedule(Runnable r, Duration delay) {
        try {
            return executor.schedule(() -> step(r), delay.toNanos(), TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException e) {
            LOG.fine("executor shut down: a step not scheduled");
            return null;
        }
    }

    /** Runs {@code r} as a step, soon. */
    @Override public void execute(Runnable r) {
        try {
            executor.execute(() -> step(r));
        } catch (RejectedExecutionException e) {
            LOG.fine("executor shut down: event dropped");
        }
    }

    /** Runs {@code work} as a step; the future completes with its result, or exceptionally with what it threw. */
    <T> CompletableFuture<T> call(Supplier<T> work) {
        CompletableFuture<T> f = new CompletableFuture<>();
        try {
            executor.execute(() -> {
                stepStarted = clock.instant();
                try {
                    f.complete(work.get());
                } catch (RuntimeException e) {
                    f.completeExceptionally(e);
                } finally {
                    stepStarted = null;
                }
            });
        } catch (RejectedExecutionException e) {
            f.completeExceptionally(new MpsException("the supervisor is shut down"));
        }
        return f;
    }

    /** A control command returned: the step is making progress ({@link ProgressControl}). */
    void progressed() {
        if (stepStarted != null) stepStarted = clock.instant();
    }

    /**
     * How long this thread has been inside its current step without finishing a control command (since the step began, or
     * since its last command returned), or empty when it is idle.
     */
    Optional<Duration> busyFor() {
        Instant began = stepStarted;
        return began == null ? Optional.empty() : Optional.of(Duration.between(began, clock.instant()));
    }

    private void step(Runnable r) {
        stepStarted = clock.instant();
        try {
            r.run();
        } catch (RuntimeException e) {
            onFailure.accept(e);
        } finally {
            stepStarted = null;
        }
    }
}
