package io.mpshare.testing;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.List;
import java.util.PriorityQueue;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.Callable;
import java.util.concurrent.Delayed;
import java.util.concurrent.Executors;
import java.util.concurrent.FutureTask;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * A {@link ScheduledExecutorService} and clock in one, driven by the test: nothing runs until
 * {@link #runDue()} or {@link #advance}, and then on the calling thread, in due order. Tasks may be
 * submitted from any thread. Fixed-rate scheduling is not supported (the supervisor reschedules itself).
 */
public final class ManualScheduler extends AbstractExecutorService implements ScheduledExecutorService, InstantSource {
    private final PriorityQueue<Task<?>> queue = new PriorityQueue<>();
    private Instant now;
    private long seq;
    private boolean shutdown;

    public ManualScheduler(Instant start) { this.now = start; }

    public ManualScheduler() { this(Instant.parse("2026-01-01T00:00:00Z")); }

    @Override public synchronized Instant instant() { return now; }

    /** Runs every task due now (including ones those tasks submit for now). Returns how many ran. */
    public int runDue() {
        int ran = 0;
        while (true) {
            Task<?> t;
            synchronized (this) {
                t = queue.peek();
                if (t == null || t.due.isAfter(now)) return ran;
                queue.poll();
            }
            t.run();
            ran++;
        }
    }

    /** Moves the clock forward by {@code d}, running tasks as their time comes. */
    public void advance(Duration d) {
        Instant end;
        synchronized (this) {
            end = now.plus(d);
        }
        while (true) {
            runDue();
            synchronized (this) {
                Task<?> t = queue.peek();
                if (t == null || t.due.isAfter(end)) {
                    now = end;
                    break;
                }
                now = t.due;
            }
        }
        runDue();
    }

    /** Delay of the earliest pending task, or null when none. */
    public synchronized Duration nextDelay() {
        Task<?> t = queue.peek();
        return t == null ? null : Duration.between(now, t.due);
    }

    public synchronized int pending() { return queue.size(); }

    @Override public void execute(Runnable command) { schedule(command, 0, TimeUnit.NANOSECONDS); }

    @Override public ScheduledFuture<?> schedule(Runnable command, long delay, TimeUnit unit) {
        return add(Executors.callable(command, null), delay, unit);
    }

    @Override public <V> ScheduledFuture<V> schedule(Callable<V> callable, long delay, TimeUnit unit) {
        return add(callable, delay, unit);
    }

    private synchronized <V> ScheduledFuture<V> add(Callable<V> c, long delay, TimeUnit unit) {
        if (shutdown) throw new RejectedExecutionException("shut down");
        Task<V> t = new Task<>(c, now.plusNanos(unit.toNanos(Math.max(0, delay))), seq++);
        queue.add(t);
        return t;
    }

    @Override public ScheduledFuture<?> scheduleAtFixedRate(Runnable command, long initialDelay, long period, TimeUnit unit) {
        throw new UnsupportedOperationException("ManualScheduler runs one-shot tasks only");
    }

    @Override public ScheduledFuture<?> scheduleWithFixedDelay(Runnable command, long initialDelay, long delay, TimeUnit unit) {
        throw new UnsupportedOperationException("ManualScheduler runs one-shot tasks only");
    }

    @Override public synchronized void shutdown() { shutdown = true; }

    @Override public synchronized List<Runnable> shutdownNow() {
        shutdown = true;
        List<Runnable> left = List.copyOf(queue);
        queue.clear();
        return left;
    }

    @Override public synchronized boolean isShutdown() { return shutdown; }

    @Override public synchronized boolean isTerminated() { return shutdown && queue.isEmpty(); }

    @Override public boolean awaitTermination(long timeout, TimeUnit unit) { return isTerminated(); }

    private final class Task<V> extends FutureTask<V> implements ScheduledFuture<V> {
        final Instant due;
        final long order;

        Task(Callable<V> c, Instant due, long order) {
            super(c);
            this.due = due;
            this.order = order;
        }

        @Override public long getDelay(TimeUnit unit) {
            return unit.convert(Duration.between(instant(), due));
        }

        @Override public int compareTo(Delayed o) {
            Task<?> t = (Task<?>) o;
            int c = due.compareTo(t.due);
            return c != 0 ? c : Long.compare(order, t.order);
        }

        @Override public boolean cancel(boolean mayInterrupt) {
            synchronized (ManualScheduler.this) {
                queue.remove(this);
            }
            return super.cancel(mayInterrupt);
        }
    }
}
