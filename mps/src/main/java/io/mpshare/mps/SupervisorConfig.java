package io.mpshare.mps;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalInt;
import java.util.TreeMap;

/**
 * What {@link MpsSupervisor} runs and how.
 *
 * @param colour          the daemon's generation; its directories are {@code <runDir>/<colour>/pipe|log}
 * @param runDir          usually {@code /run/mpshare}
 * @param visibleDevices  {@code CUDA_VISIBLE_DEVICES} for the daemon (the node's shared GPUs); empty = all
 * @param defaultActiveThreadPercentage applied after each start when present
 * @param initialCeilingsMib per-GPU server ceilings (device ordinal → MiB) applied after each start, until changed
 * @param backoff         restart delays after the daemon exits
 * @param stableAfter     an exit after this long up counts as a first failure again (backoff resets)
 * @param probeInterval   how often a starting daemon is asked whether it answers
 * @param maxProbes       probes before a silent daemon is killed and restarted
 * @param healthInterval  how often a running daemon's servers and clients are read
 * @param maxMissedHealthChecks failed health reads in a row before a silent daemon is killed and restarted
 * @param quitTimeout     how long {@code quit} may take before SIGTERM, then SIGKILL as long again
 */
public record SupervisorConfig(Colour colour, Path runDir, String visibleDevices, OptionalInt defaultActiveThreadPercentage,
                               Map<Integer, Long> initialCeilingsMib, Backoff backoff, Duration stableAfter,
                               Duration probeInterval, int maxProbes, Duration healthInterval, int maxMissedHealthChecks,
                               Duration quitTimeout) {
    public SupervisorConfig {
        Objects.requireNonNull(colour);
        Objects.requireNonNull(runDir);
        visibleDevices = visibleDevices == null ? "" : visibleDevices.strip();
        initialCeilingsMib = Map.copyOf(new TreeMap<>(initialCeilingsMib));
        initialCeilingsMib.forEach((d, mib) -> {
            if (d < 0 || mib <= 0) throw new IllegalArgumentException("ceiling " + d + "=" + mib + ": device >= 0 and MiB > 0");
        });
        defaultActiveThreadPercentage.ifPresent(p -> {
            if (p < 1 || p > 100) throw new IllegalArgumentException("active thread percentage must be 1..100, not " + p);
        });
        if (maxProbes < 1 || maxMissedHealthChecks < 1) throw new IllegalArgumentException("maxProbes and maxMissedHealthChecks must be >= 1");
    }

    /** Production defaults: backoff 1 s doubling to 60 s, reset after 5 min up; probe every 200 ms for 15 s; health every 1 s. */
    public static SupervisorConfig defaults(Colour colour, Path runDir) {
        return new SupervisorConfig(colour, runDir, "", OptionalInt.empty(), Map.of(),
                new Backoff(Duration.ofSeconds(1), Duration.ofSeconds(60)), Duration.ofMinutes(5),
                Duration.ofMillis(200), 75, Duration.ofSeconds(1), 3, Duration.ofSeconds(10));
    }

    public SupervisorConfig withVisibleDevices(String devices) {
        return new SupervisorConfig(colour, runDir, devices, defaultActiveThreadPercentage, initialCeilingsMib, backoff,
                stableAfter, probeInterval, maxProbes, healthInterval, maxMissedHealthChecks, quitTimeout);
    }

    public SupervisorConfig withThreadPercentage(OptionalInt percent) {
        return new SupervisorConfig(colour, runDir, visibleDevices, percent, initialCeilingsMib, backoff,
                stableAfter, probeInterval, maxProbes, healthInterval, maxMissedHealthChecks, quitTimeout);
    }

    public SupervisorConfig withCeilings(Map<Integer, Long> ceilingsMib) {
        return new SupervisorConfig(colour, runDir, visibleDevices, defaultActiveThreadPercentage, ceilingsMib, backoff,
                stableAfter, probeInterval, maxProbes, healthInterval, maxMissedHealthChecks, quitTimeout);
    }

    public SupervisorConfig withBackoff(Backoff b, Duration stable) {
        return new SupervisorConfig(colour, runDir, visibleDevices, defaultActiveThreadPercentage, initialCeilingsMib, b,
                stable, probeInterval, maxProbes, healthInterval, maxMissedHealthChecks, quitTimeout);
    }

    public Path pipeDir() { return colour.pipeDir(runDir); }

    public Path logDir() { return colour.logDir(runDir); }
}
