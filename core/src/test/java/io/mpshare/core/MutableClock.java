package io.mpshare.core;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;

/** A clock the test moves by hand. */
public final class MutableClock implements InstantSource {
    private volatile Instant now;

    public MutableClock(Instant start) { this.now = start; }

    @Override public Instant instant() { return now; }

    public void advance(Duration d) { now = now.plus(d); }
}
