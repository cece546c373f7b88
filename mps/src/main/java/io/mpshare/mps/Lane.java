package io.mpshare.mps;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.BiConsumer;
import java.util.function.Supplier;

/**
 * One daemon's control commands, one job at a time, off the supervisor's thread: a job runs on {@code work} (virtual
 * threads in production: a daemon that stops answering blocks only its own lane, for its command timeout, never the
 * other daemons' health checks, faults or the heartbeat), and its result comes back as a step on the supervisor's thread.
 * Jobs queue in order. Every method is called on the supervisor's thread. With {@code work} the supervisor's thread
 * itself (host mode and the single-daemon tests), a job is a step of its own, as before lanes existed.
 */
final class Lane {
    private final Executor work;
    private final SupervisorThread home;
    private final Deque<Runnable> queue = new ArrayDeque<>();
    private boolean busy;

    Lane(Executor work, SupervisorThread home) {
        this.work = work;
        this.home = home;
    }

    /** Runs {@code job} on the lane, then {@code then} with its value or what it threw (an {@link MpsException} mostly). */
    <T> void ask(Supplier<T> job, BiConsumer<T, RuntimeException> then) {
        queue.add(() -> {
            T value = null;
            RuntimeException error = null;
            try {
                value = job.get();
            } catch (RuntimeException e) {
                error = e;
            }
            T v = value;
            RuntimeException err = error;
            home.execute(() -> {
                busy = false;
                try {
                    then.accept(v, err);
                } finally {
                    next();
                }
            });
        });
        next();
    }

    /** A job runs or waits. */
    boolean busy() { return busy || !queue.isEmpty(); }

    private void next() {
        if (busy) return;
        Runnable r = queue.poll();
        if (r == null) return;
        busy = true;
        try {
            work.execute(r);
        } catch (RejectedExecutionException e) {
            busy = false; // shutting down
            queue.clear();
        }
    }
}
