package io.mpshare.mps.fault;

import io.mpshare.mps.fault.FaultSignal.Strength;

import java.nio.file.Path;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The domains' logs as a fault detector: each watched domain's files ({@code daemon.log}, where a foreground daemon and
 * its servers write, and {@code server.log}/{@code control.log} where a driver writes them) are tailed at every poll
 * and each new line read by {@link FaultLines}. At most one signal of each strength per domain per poll (a flood of
 * refusals is one fault). A domain's log is written by its own daemon and servers only, so a signal names its domain.
 */
public final class LogFaultSource implements FaultSource {
    /** {@code daemon.log} is truncated past this size (it gains four lines per control command in foreground mode). */
    public static final long DAEMON_LOG_MAX_BYTES = 16L * 1024 * 1024;
    private final InstantSource clock;
    private final Map<String, List<LogTail>> tails = new LinkedHashMap<>();

    public LogFaultSource(InstantSource clock) { this.clock = clock; }

    @Override public String name() { return FaultSignal.LOG; }

    /** @param logs the daemon's own output file first (truncated when large), then files the driver writes (only read) */
    @Override public void watch(String domain, List<Path> logs) {
        List<LogTail> t = new ArrayList<>();
        for (int i = 0; i < logs.size(); i++) t.add(new LogTail(logs.get(i), i == 0 ? DAEMON_LOG_MAX_BYTES : Long.MAX_VALUE));
        tails.put(domain, t);
    }

    @Override public void unwatch(String domain) { tails.remove(domain); }

    @Override public List<FaultSignal> poll() {
        List<FaultSignal> out = new ArrayList<>();
        tails.forEach((domain, files) -> {
            String fault = null, hint = null;
            for (LogTail t : files) {
                for (String line : t.readNew()) {
                    Optional<Strength> s = FaultLines.read(line);
                    if (s.isEmpty()) continue;
                    if (s.get() == Strength.FAULT && fault == null) fault = line.strip();
                    if (s.get() == Strength.HINT && hint == null) hint = line.strip();
                }
            }
            if (fault != null) out.add(FaultSignal.forDomain(name(), clock.instant(), domain, Strength.FAULT, cut(fault)));
            if (hint != null) out.add(FaultSignal.forDomain(name(), clock.instant(), domain, Strength.HINT, cut(hint)));
        });
        return out;
    }

    private static String cut(String s) { return s.length() > 200 ? s.substring(0, 200) : s; }
}
