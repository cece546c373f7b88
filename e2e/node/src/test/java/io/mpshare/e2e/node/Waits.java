package io.mpshare.e2e.node;

import java.time.Duration;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * Waiting for a real kubelet, containerd or API server to reach a state: these are outside processes with their own
 * clocks, so the tier polls (every 50 ms) with a deadline and says what it saw when the deadline passes.
 */
final class Waits {
    private Waits() {}

    /** Polls until {@code done}; returns the time it took. */
    static Duration until(Duration limit, BooleanSupplier done, Supplier<String> onTimeout) throws InterruptedException {
        long start = System.nanoTime();
        long deadline = start + limit.toNanos();
        while (!done.getAsBoolean()) {
            if (System.nanoTime() > deadline) throw new AssertionError("not within " + limit.toMillis() + " ms: " + onTimeout.get());
            Thread.sleep(50); // polling another process's state
        }
        return Duration.ofNanos(System.nanoTime() - start);
    }
}
