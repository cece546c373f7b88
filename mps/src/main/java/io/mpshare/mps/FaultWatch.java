package io.mpshare.mps;

import io.mpshare.mps.fault.FaultJudge;
import io.mpshare.mps.fault.FaultJudge.Finding;
import io.mpshare.mps.fault.FaultSignal;
import io.mpshare.mps.fault.FaultSource;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.logging.Logger;

/**
 * Polls the fault detectors on the supervisor's thread every {@code interval} (200 ms by default: a fault is seen within
 * that of its first sign) and hands each signal to the {@link FaultJudge}; what the judge finds goes to the supervisor.
 */
final class FaultWatch {
    private static final Logger LOG = Logger.getLogger(FaultWatch.class.getName());

    /** Where signals and findings go (the supervisor). */
    interface Sink {
        /** Every domain's GPU. */
        Map<String, String> gpus();

        void found(Finding f);

        /** An Xid on {@code gpu}: the domains there may check their servers. */
        void xid(String gpu);

        void counted(FaultSignal s);
    }

    private final List<FaultSource> sources;
    private final FaultJudge judge;
    private final SupervisorThread thread;
    private final Duration interval;
    private final Sink sink;
    private boolean started;

    FaultWatch(List<FaultSource> sources, FaultJudge judge, SupervisorThread thread, Duration interval, Sink sink) {
        this.sources = List.copyOf(sources);
        this.judge = judge;
        this.thread = thread;
        this.interval = interval;
        this.sink = sink;
    }

    void start() {
        if (started || sources.isEmpty()) return;
        started = true;
        thread.schedule(this::poll, interval);
    }

    void watch(String domain, List<Path> logs) { sources.forEach(s -> s.watch(domain, logs)); }

    void unwatch(String domain) { sources.forEach(s -> s.unwatch(domain)); }

    /** One signal, from a source or from a domain's own check. */
    void take(FaultSignal s) {
        sink.counted(s);
        if (s.gpu() != null && FaultSignal.XID.equals(s.source())) sink.xid(s.gpu());
        for (Finding f : judge.take(s, sink.gpus())) sink.found(f);
    }

    private void poll() {
        for (FaultSource source : sources) {
            try {
                source.poll().forEach(this::take);
            } catch (RuntimeException e) {
                LOG.warning("fault detector " + source.name() + " failed: " + e);
            }
        }
        thread.schedule(this::poll, interval);
    }

    void close() {
        for (FaultSource s : sources) {
            try {
                s.close();
            } catch (RuntimeException e) {
                LOG.fine("closing " + s.name() + ": " + e);
            }
        }
    }
}
