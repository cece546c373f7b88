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
 * {@code mpshare_mps_ceiling_changes_total}, each labelled {@code colour}.
 */
public final class SupervisorMetrics {
    private final PrometheusRegistry registry = new PrometheusRegistry();
    private final PrometheusTextFormatWriter writer = PrometheusTextFormatWriter.create();
    private final Gauge up;
    private final Counter restarts;
    private final Counter ceilingChanges;
    private final Counter ceilingRestores;
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
        ceilingRestores.labelValues(this.colour).inc(0);
        up.labelValues(this.colour).set(0);
        restarts.labelValues(this.colour).inc(0);
        ceilingChanges.labelValues(this.colour).inc(0);
    }

    void daemonUp(boolean isUp) { up.labelValues(colour).set(isUp ? 1 : 0); }

    void restarted() { restarts.labelValues(colour).inc(); }

    void ceilingChanged() { ceilingChanges.labelValues(colour).inc(); }

    void ceilingRestored() { ceilingRestores.labelValues(colour).inc(); }

    public String contentType() { return writer.getContentType(); }

    /** Writes the Prometheus text exposition of every metric. */
    public void write(OutputStream out) throws IOException { writer.write(out, registry.scrape()); }
}
