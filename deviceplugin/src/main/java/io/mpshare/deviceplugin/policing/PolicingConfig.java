package io.mpshare.deviceplugin.policing;

import io.mpshare.policing.ActionPolicy;
import io.mpshare.policing.metrics.PolicerMetrics.PodSeries;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;

/**
 * The device plugin's policer flags.
 *
 * @param enabled  run the policer (default true)
 * @param action   {@code --police-action}: event, terminate (default) or evict
 * @param interval {@code --police-interval}: sampling period (default 1 s)
 * @param procRoot {@code --proc-root}: the host's {@code /proc} (hostPID; default {@code /proc})
 * @param podSeries {@code --pod-metrics}: whether {@code /metrics} carries the per-pod and per-container series, which
 *                  name every tenant's pods (default left out; the chart sets it where its NetworkPolicy keeps the
 *                  metrics port to the scrapers)
 */
public record PolicingConfig(boolean enabled, ActionPolicy action, Duration interval, Path procRoot, PodSeries podSeries) {
    public PolicingConfig {
        Objects.requireNonNull(action, "action");
        Objects.requireNonNull(podSeries, "podSeries");
        Objects.requireNonNull(interval, "interval");
        Objects.requireNonNull(procRoot, "procRoot");
        if (interval.isNegative() || interval.isZero()) throw new IllegalArgumentException("police interval must be > 0, got " + interval);
    }

    public static PolicingConfig defaults() {
        return new PolicingConfig(true, ActionPolicy.TERMINATE, Duration.ofSeconds(1), Path.of("/proc"), PodSeries.LEFT_OUT);
    }

    public static PolicingConfig off() { return defaults().withEnabled(false); }

    public PolicingConfig withEnabled(boolean on) { return new PolicingConfig(on, action, interval, procRoot, podSeries); }

    public PolicingConfig withAction(ActionPolicy a) { return new PolicingConfig(enabled, a, interval, procRoot, podSeries); }

    public PolicingConfig withInterval(Duration d) { return new PolicingConfig(enabled, action, d, procRoot, podSeries); }

    public PolicingConfig withProcRoot(Path p) { return new PolicingConfig(enabled, action, interval, p, podSeries); }

    public PolicingConfig withPodSeries(PodSeries s) { return new PolicingConfig(enabled, action, interval, procRoot, s); }
}
