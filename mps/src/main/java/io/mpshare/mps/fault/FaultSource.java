package io.mpshare.mps.fault;

import java.nio.file.Path;
import java.util.List;

/**
 * A fault detector, polled on the supervisor's thread (every 200 ms by default): it must answer at once (no blocking
 * read) with what it saw since the last poll. Sources that watch per-domain files learn the domains from
 * {@link #watch}/{@link #unwatch}.
 */
public interface FaultSource extends AutoCloseable {
    /** The detector's name in signals and the status ({@link FaultSignal#source()}). */
    String name();

    /** Signals since the last poll; empty when nothing happened. Never throws for I/O: a detector that cannot read says so in its log. */
    List<FaultSignal> poll();

    /** Starts watching one domain: {@code logs} are its log files (they may not exist yet). */
    default void watch(String domain, List<Path> logs) {}

    default void unwatch(String domain) {}

    @Override default void close() {}
}
