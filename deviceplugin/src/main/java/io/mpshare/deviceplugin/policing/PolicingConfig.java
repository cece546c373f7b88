package io.mpshare.deviceplugin.policing;

import io.mpshare.policing.ActionPolicy;

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
 */
public record PolicingConfig(boolean enabled, ActionPolicy action, Duration interval, Path procRoot) {
    public PolicingConfig {
        Objects.requireNonNull(action, "action");
        Objects.requireNonNull(interval, "interval");
        Objects.requireNonNull(procRoot, "procRoot");
        if (interval.isNegative() || interval.isZero()) throw new IllegalArgumentException("police interval must be > 0, got " + interval);
    }

    public static PolicingConfig defaults() {
        return new PolicingConfig(true, ActionPolicy.TERMINATE, Duration.ofSeconds(1), Path.of("/proc"));
    }

    public static PolicingConfig off() { return defaults().withEnabled(false); }

    public PolicingConfig withEnabled(boolean on) { return new PolicingConfig(on, action, interval, procRoot); }

    public PolicingConfig withAction(ActionPolicy a) { return new PolicingConfig(enabled, a, interval, procRoot); }

    public PolicingConfig withInterval(Duration d) { return new PolicingConfig(enabled, action, d, procRoot); }

    public PolicingConfig withProcRoot(Path p) { return new PolicingConfig(enabled, action, interval, p); }
}
