package io.mpshare.mps;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
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
 * @param maxMissedHealthChecks failed health reads in a row before a silent daemon is judged: STALLED while it may have
 *                        clients (never killed for it), restarted when it has no MPS server
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

    /**
     * Production defaults: backoff 1 s doubling to 60 s, reset after 5 min up; probe every 200 ms for 15 s;
     * health every 5 s (a daemon's exit is seen at once without it; each check costs the daemon's log 4 lines
     * per command in foreground mode, so it is not polled faster).
     */
    public static SupervisorConfig defaults(Colour colour, Path runDir) {
        return new SupervisorConfig(colour, runDir, "", OptionalInt.empty(), Map.of(),
                new Backoff(Duration.ofSeconds(1), Duration.ofSeconds(60)), Duration.ofMinutes(5),
                Duration.ofMillis(200), 75, Duration.ofSeconds(5), 3, Duration.ofSeconds(10));
    }

    public SupervisorConfig withHealthInterval(Duration interval) {
        return new SupervisorConfig(colour, runDir, visibleDevices, defaultActiveThreadPercentage, initialCeilingsMib, backoff,
                stableAfter, probeInterval, maxProbes, interval, maxMissedHealthChecks, quitTimeout);
    }

    /**
     * Parses ceilings written {@code DEVICE=SIZE}: {@code 0=8192} (MiB), {@code 0=8192M}, {@code 0=8G}.
     * The message says what to write otherwise.
     */
    public static Map<Integer, Long> parseCeilings(List<String> specs) {
        Map<Integer, Long> out = new TreeMap<>();
        for (String spec : specs) {
            String[] kv = spec.split("=", 2);
            String hint = "ceiling '" + spec + "': write DEVICE=SIZE, e.g. 0=8192 (MiB), 0=8192M or 0=8G";
            if (kv.length != 2) throw new IllegalArgumentException(hint);
            try {
                String v = kv[1].strip().toUpperCase(Locale.ROOT);
                long mib = v.endsWith("G") ? Math.multiplyExact(Long.parseLong(v.substring(0, v.length() - 1)), 1024L)
                        : Long.parseLong(v.endsWith("M") ? v.substring(0, v.length() - 1) : v);
                int device = Integer.parseInt(kv[0].strip());
                if (device < 0 || mib <= 0) throw new IllegalArgumentException(hint);
                out.put(device, mib);
            } catch (NumberFormatException | ArithmeticException e) {
                throw new IllegalArgumentException(hint);
            }
        }
        return out;
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

    DaemonTimings timings() {
        return new DaemonTimings(backoff, stableAfter, probeInterval, maxProbes, healthInterval, maxMissedHealthChecks, quitTimeout);
    }

    public Path pipeDir() { return colour.pipeDir(runDir); }

    public Path logDir() { return colour.logDir(runDir); }
}
