package io.mpshare.mps;

import java.time.Duration;

/** Exponential restart delay: {@code initial × 2^(failuresInARow − 1)}, at most {@code max}. */
public record Backoff(Duration initial, Duration max) {
    public Backoff {
        if (initial.isNegative() || initial.isZero() || max.compareTo(initial) < 0) {
            throw new IllegalArgumentException("backoff needs 0 < initial <= max, got " + initial + ", " + max);
        }
    }

    /** Delay before the next start after {@code failuresInARow} (1 = the first failure). */
    public Duration delay(int failuresInARow) {
        if (failuresInARow <= 1) return initial;
        int shift = Math.min(failuresInARow - 1, 30);
        long millis = initial.toMillis() << shift;
        return millis <= 0 || millis > max.toMillis() ? max : Duration.ofMillis(millis);
    }
}
