package io.mpshare.mps;

import java.time.Duration;

/**
 * How a {@link DaemonKeeper} paces its daemon: the same for the node daemon and every domain's ({@link SupervisorConfig}
 * documents each).
 */
record DaemonTimings(Backoff backoff, Duration stableAfter, Duration probeInterval, int maxProbes, Duration healthInterval,
                     int maxMissedHealthChecks, Duration quitTimeout) {}
