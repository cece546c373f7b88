package io.mpshare.deviceplugin.domains;

import io.mpshare.core.isolation.FaultDomains.Kind;
import io.mpshare.core.isolation.FaultSuspects;

import java.time.Duration;
import java.util.Locale;
import java.util.Objects;

/**
 * The device plugin's fault-domain flags (docs/device-plugin.md, "Fault domains").
 *
 * @param clusterDefault the kind of namespaces without the {@code mpshare.io/fault-domain} label
 *                       ({@code --fault-domain-default}, chart {@code faultDomains.default})
 * @param suspects       when a workload becomes a fault suspect, and for how long ({@code --suspect-faults},
 *                       {@code --suspect-window}, {@code --suspect-hold})
 * @param daemonWait     how long Allocate waits, off kubelet's event loop, for a pod's domain to serve before it refuses
 *                       ({@code --domain-wait})
 * @param health         what a faulted domain does to its GPU's devices ({@code --domain-fault-health})
 * @param period         how often the supervisors' domains are read
 */
public record DomainsConfig(Kind clusterDefault, FaultSuspects.Policy suspects, Duration daemonWait, Health health, Duration period) {
    /** Long enough for a daemon's start and most of a fault's tear-down; short enough not to hold kubelet's admissions long. */
    public static final Duration DEFAULT_DAEMON_WAIT = Duration.ofSeconds(5);

    /** What a domain's fault does to kubelet's view of its GPU (docs/decisions/domain-health.md). */
    public enum Health {
        /** The domain's new pods are refused at Allocate; the GPU's devices stay Healthy for every other domain (default). */
        DOMAIN,
        /** Also the GPU's devices are Unhealthy while one of its domains is FAULTED (not while one is STALLED). */
        GPU;

        public String label() { return name().toLowerCase(Locale.ROOT); }

        public static Health parse(String s) {
            for (Health h : values()) if (h.label().equals(s == null ? "" : s.strip().toLowerCase(Locale.ROOT))) return h;
            throw new IllegalArgumentException("--domain-fault-health must be domain or gpu, not '" + s + "'");
        }
    }

    public DomainsConfig {
        Objects.requireNonNull(clusterDefault, "clusterDefault");
        Objects.requireNonNull(suspects, "suspects");
        Objects.requireNonNull(health, "health");
        if (daemonWait.isNegative() || daemonWait.compareTo(Duration.ofSeconds(60)) > 0)
            throw new IllegalArgumentException("--domain-wait must be 0-60 s (kubelet admits pods one at a time), got " + daemonWait);
        if (period.isNegative() || period.isZero()) throw new IllegalArgumentException("the domains' period must be > 0, got " + period);
    }

    /**
     * {@code node} kind unless a namespace asks otherwise (today's one daemon per colour: an agent started bare needs no
     * domain-capable supervisor; the chart sets {@code tenant}), 2 faults in 10 minutes held an hour, 5 s, domain health,
     * read every 500 ms.
     */
    public static DomainsConfig defaults() {
        return new DomainsConfig(Kind.NODE, FaultSuspects.Policy.DEFAULT, DEFAULT_DAEMON_WAIT, Health.DOMAIN, DomainController.DEFAULT_PERIOD);
    }

    public DomainsConfig withClusterDefault(Kind k) { return new DomainsConfig(k, suspects, daemonWait, health, period); }

    public DomainsConfig withSuspects(FaultSuspects.Policy p) { return new DomainsConfig(clusterDefault, p, daemonWait, health, period); }

    public DomainsConfig withDaemonWait(Duration d) { return new DomainsConfig(clusterDefault, suspects, d, health, period); }

    public DomainsConfig withHealth(Health h) { return new DomainsConfig(clusterDefault, suspects, daemonWait, h, period); }

    public DomainsConfig withPeriod(Duration p) { return new DomainsConfig(clusterDefault, suspects, daemonWait, health, p); }
}
