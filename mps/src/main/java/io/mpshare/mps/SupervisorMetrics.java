package io.mpshare.mps;

import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.Gauge;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.model.registry.PrometheusRegistry;

import java.io.IOException;
import java.io.OutputStream;

/**
 * The supervisor's Prometheus metrics, in a registry of its own (so tests and two colours never clash):
 * {@code mpshare_mps_daemon_up}, {@code mpshare_mps_daemon_restarts_total},
 * {@code mpshare_mps_ceiling_changes_total}, {@code mpshare_mps_ceiling_restores_total}, each labelled {@code colour}; and
 * for stalls and fault domains {@code mpshare_mps_daemon_stalled} and {@code mpshare_mps_daemon_stalls_total},
 * {@code mpshare_mps_domain_faults_total}, {@code mpshare_mps_fault_clients_killed_total},
 * {@code mpshare_mps_fault_signals_total}, {@code mpshare_mps_domain_restarts_total} (labels {@code domain},
 * {@code source} where they apply).
 */
public final class SupervisorMetrics {
    private final PrometheusRegistry registry = new PrometheusRegistry();
    private final PrometheusTextFormatWriter writer = PrometheusTextFormatWriter.create();
    private final Gauge up;
    private final Counter restarts;
    private final Counter ceilingChanges;
    private final Counter ceilingRestores;
    private final Gauge stalled;
    private final Counter stalls;
    private final Counter faults;
    private final Counter faultClientsKilled;
    private final Counter faultSignals;
    private final Counter domainRestarts;
    private final String colour;

    public SupervisorMetrics(Colour colour) {
        this.colour = colour.id();
        up = Gauge.builder().name("mpshare_mps_daemon_up")
                .help("1 while the MPS control daemon runs, answers and has every setting applied").labelNames("colour").register(registry);
        restarts = Counter.builder().name("mpshare_mps_daemon_restarts_total")
                .help("starts of the MPS control daemon after the first").labelNames("colour").register(registry);
        ceilingChanges = Counter.builder().name("mpshare_mps_ceiling_changes_total")
                .help("per-GPU pinned memory ceiling changes applied without restarting the daemon").labelNames("colour").register(registry);
        ceilingRestores = Counter.builder().name("mpshare_mps_ceiling_restores_total")
                .help("server ceilings found changed outside the supervisor (by a client of that server's UID) and put back").labelNames("colour").register(registry);
        stalled = Gauge.builder().name("mpshare_mps_daemon_stalled")
                .help("1 while a control daemon (domain \"node\" for the colour's node daemon) does not answer and may have clients: "
                        + "STALLED, never killed for it").labelNames("colour", "domain").register(registry);
        stalls = Counter.builder().name("mpshare_mps_daemon_stalls_total")
                .help("times a control daemon stopped answering while it may have had clients (its control socket held)").labelNames("colour").register(registry);
        faults = Counter.builder().name("mpshare_mps_domain_faults_total")
                .help("faults of a domain's MPS server: every client of that server killed").labelNames("colour", "domain").register(registry);
        faultClientsKilled = Counter.builder().name("mpshare_mps_fault_clients_killed_total")
                .help("client processes SIGKILLed because their MPS server faulted").labelNames("colour").register(registry);
        faultSignals = Counter.builder().name("mpshare_mps_fault_signals_total")
                .help("signals of the fault detectors, by source (log, xid, server-status)").labelNames("colour", "source").register(registry);
        domainRestarts = Counter.builder().name("mpshare_mps_domain_restarts_total")
                .help("starts of a domain's control daemon after its first").labelNames("colour", "domain").register(registry);
        ceilingRestores.labelValues(this.colour).inc(0);
        stalls.labelValues(this.colour).inc(0);
        faultClientsKilled.labelValues(this.colour).inc(0);
        up.labelValues(this.colour).set(0);
        restarts.labelValues(this.colour).inc(0);
        ceilingChanges.labelValues(this.colour).inc(0);
    }

    void daemonUp(boolean isUp) { up.labelValues(colour).set(isUp ? 1 : 0); }

    void restarted() { restarts.labelValues(colour).inc(); }

    void ceilingChanged() { ceilingChanges.labelValues(colour).inc(); }

    void ceilingRestored() { ceilingRestores.labelValues(colour).inc(); }

    /** The node daemon's series are labelled domain="node". */
    void stalled(String domain, boolean isStalled) {
        if (isStalled) stalls.labelValues(colour).inc();
        stalled.labelValues(colour, domain).set(isStalled ? 1 : 0);
    }

    void domainFaulted(String domain) { faults.labelValues(colour, domain).inc(); }

    void clientsKilled(int n) { faultClientsKilled.labelValues(colour).inc(n); }

    void faultSignal(String source) { faultSignals.labelValues(colour, source).inc(); }

    void domainRestarted(String domain) { domainRestarts.labelValues(colour, domain).inc(); }

    /** A domain is gone: its series go with it. */
    void domainRemoved(String domain) {
        stalled.remove(colour, domain);
        faults.remove(colour, domain);
        domainRestarts.remove(colour, domain);
    }

    public String contentType() { return writer.getContentType(); }

    /** Writes the Prometheus text exposition of every metric. */
    public void write(OutputStream out) throws IOException { writer.write(out, registry.scrape()); }
}
