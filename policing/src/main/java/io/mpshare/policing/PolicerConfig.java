package io.mpshare.policing;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;

/**
 * The policer's settings.
 *
 * @param node               node name (a label on metrics); the host name in host mode
 * @param period             sampling period (default 1 s); actions happen in the cycle that saw the finding
 * @param policy             what to do about an over-limit pod or a rogue process (default terminate)
 * @param slackMibPerPod     allowed per pod on top of its charge (request + reserve per GPU-asking container), for NVML vs
 *                           MPS accounting (default 128); one per pod, not per process (docs/policing.md, "Limits")
 * @param escalateAfter      a client still on the GPU this long after {@code terminate_client} is SIGKILLed;
 *                           {@link Duration#ZERO} never escalates (default 5 s)
 * @param retryAfter         an eviction blocked by a PodDisruptionBudget is tried again after this (default 30 s)
 * @param usageEvery         usage goes to the {@link UsageSink} at most this often (default 10 s)
 * @param procRoot           the {@code /proc} to read (default {@code /proc}; needs hostPID)
 */
public record PolicerConfig(String node, Duration period, ActionPolicy policy, long slackMibPerPod,
                            Duration escalateAfter, Duration retryAfter, Duration usageEvery, Path procRoot) {
    public static final Duration DEFAULT_PERIOD = Duration.ofSeconds(1);
    public static final long DEFAULT_SLACK_MIB = 128;

    public PolicerConfig {
        Objects.requireNonNull(node, "node");
        Objects.requireNonNull(period, "period");
        Objects.requireNonNull(policy, "policy");
        Objects.requireNonNull(escalateAfter, "escalateAfter");
        Objects.requireNonNull(retryAfter, "retryAfter");
        Objects.requireNonNull(usageEvery, "usageEvery");
        Objects.requireNonNull(procRoot, "procRoot");
        if (period.isNegative() || period.isZero()) throw new IllegalArgumentException("period must be > 0, got " + period);
        if (slackMibPerPod < 0) throw new IllegalArgumentException("slackMibPerPod must be >= 0");
        if (escalateAfter.isNegative() || retryAfter.isNegative() || usageEvery.isNegative())
            throw new IllegalArgumentException("durations must be >= 0");
    }

    public static PolicerConfig defaults(String node) {
        return new PolicerConfig(node, DEFAULT_PERIOD, ActionPolicy.TERMINATE, DEFAULT_SLACK_MIB,
                Duration.ofSeconds(5), Duration.ofSeconds(30), Duration.ofSeconds(10), Path.of("/proc"));
    }

    public PolicerConfig withPolicy(ActionPolicy p) {
        return new PolicerConfig(node, period, p, slackMibPerPod, escalateAfter, retryAfter, usageEvery, procRoot);
    }

    public PolicerConfig withPeriod(Duration d) {
        return new PolicerConfig(node, d, policy, slackMibPerPod, escalateAfter, retryAfter, usageEvery, procRoot);
    }

    public PolicerConfig withProcRoot(Path p) {
        return new PolicerConfig(node, period, policy, slackMibPerPod, escalateAfter, retryAfter, usageEvery, p);
    }

    public PolicerConfig withEscalateAfter(Duration d) {
        return new PolicerConfig(node, period, policy, slackMibPerPod, d, retryAfter, usageEvery, procRoot);
    }
}
