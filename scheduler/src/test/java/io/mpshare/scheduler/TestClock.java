package io.mpshare.scheduler;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;

/** A clock tests move by hand. */
public final class TestClock implements InstantSource {
    private volatile Instant now = Instant.parse("2026-11-30T03:00:00Z");

    @Override public Instant instant() { return now; }

    public void advance(Duration d) { now = now.plus(d); }
}
