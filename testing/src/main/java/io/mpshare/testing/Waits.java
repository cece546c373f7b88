package io.mpshare.testing;

import java.time.Duration;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * Waiting for something outside the test's control to reach a state: an informer delivering an event, a real kubelet,
 * containerd or API server. These run on their own threads or clocks, so the test polls (every 20 ms) with a deadline
 * and says what it saw when the deadline passes. Never a timed sleep, never a timed assertion: the deadline only ends a
 * wait that would otherwise hang.
 */
public final class Waits {
    private static final long POLL_MS = 20;

    private Waits() {}

    /** Polls until {@code done}; returns the time it took. Past {@code limit}: an AssertionError with {@code onTimeout}'s text. */
    public static Duration until(Duration limit, BooleanSupplier done, Supplier<String> onTimeout) throws InterruptedException {
        long start = System.nanoTime();
        long deadline = start + limit.toNanos();
        while (!done.getAsBoolean()) {
            if (System.nanoTime() > deadline) throw new AssertionError("not within " + limit.toMillis() + " ms: " + onTimeout.get());
            Thread.sleep(POLL_MS); // polling state another thread or process owns
        }
        return Duration.ofNanos(System.nanoTime() - start);
    }
}
