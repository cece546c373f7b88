package io.mpshare.scheduler.metrics;

import io.mpshare.core.ledger.Allocation;
import io.mpshare.core.ledger.Ledger;
import io.mpshare.core.ledger.NodeState;
import io.mpshare.core.ledger.Phase;
import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.core.metrics.Histogram;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.model.registry.PrometheusRegistry;

import java.io.IOException;
import java.io.OutputStream;
import java.util.EnumMap;

/**
 * The extender's metrics, on a registry of its own (no global state):
 * <ul>
 * <li>{@code mpshare_extender_request_duration_seconds{verb}}: latency histogram per verb;</li>
 * <li>{@code mpshare_extender_failures_total{verb,reason}}: answers that carried an Error, or a refused bind;</li>
 * <li>{@code mpshare_extender_gpu_allocated_mib{node,gpu}} and {@code mpshare_extender_gpu_total_mib{node,gpu}}:
 *     read from the ledger at scrape time;</li>
 * <li>{@code mpshare_extender_pods{phase}}: bookings per lifecycle phase;</li>
 * <li>{@code mpshare_extender_requeues_total{outcome}}: refused pods woken once room for them appeared
 *     ({@code requeued}), found gone ({@code gone}), or not reached ({@code failed}, tried again).</li>
 * </ul>
 */
public final class ExtenderMetrics {
    private final PrometheusRegistry registry = new PrometheusRegistry();
    private final Histogram latency;
    private final Counter failures;
    private final Counter requeues;
    private final PrometheusTextFormatWriter writer = PrometheusTextFormatWriter.create();

    public ExtenderMetrics(Ledger ledger) {
        latency = Histogram.builder().name("mpshare_extender_request_duration_seconds")
                .help("Time to answer one kube-scheduler call, by verb")
                .labelNames("verb").classicOnly()
                .classicUpperBounds(0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5)
                .register(registry);
        failures = Counter.builder().name("mpshare_extender_failures_total")
                .help("Calls answered with an Error (or a refused bind), by verb and reason")
                .labelNames("verb", "reason").register(registry);
        requeues = Counter.builder().name("mpshare_extender_requeues_total")
                .help("Refused pods the extender woke once room for them appeared (requeued), found gone, or failed to reach (tried again)")
                .labelNames("outcome").register(registry);
        GaugeWithCallback.builder().name("mpshare_extender_gpu_allocated_mib")
                .help("GPU memory booked in the ledger (requests plus context reserve), per node and GPU index")
                .labelNames("node", "gpu")
                .callback(cb -> {
                    for (NodeState s : ledger.nodes())
                        for (int i = 0; i < s.gpuCount(); i++) cb.call(s.allocatedMib(i), s.name(), Integer.toString(s.gpu(i).index()));
                }).register(registry);
        GaugeWithCallback.builder().name("mpshare_extender_gpu_total_mib")
                .help("GPU memory of each GPU as its node publishes it")
                .labelNames("node", "gpu")
                .callback(cb -> {
                    for (NodeState s : ledger.nodes())
                        for (int i = 0; i < s.gpuCount(); i++) cb.call(s.totalMib(i), s.name(), Integer.toString(s.gpu(i).index()));
                }).register(registry);
        GaugeWithCallback.builder().name("mpshare_extender_pods")
                .help("Pods booked in the ledger, by phase")
                .labelNames("phase")
                .callback(cb -> {
                    var m = new EnumMap<Phase, Integer>(Phase.class);
                    for (Phase p : Phase.values()) m.put(p, 0);
                    for (Allocation a : ledger.allocations()) m.merge(a.phase(), 1, Integer::sum);
                    m.forEach((p, n) -> cb.call(n, p.name()));
                }).register(registry);
    }

    public void observe(String verb, long nanos) {
        latency.labelValues(verb).observe(nanos / 1e9);
    }

    public void failure(String verb, String reason) {
        failures.labelValues(verb, reason).inc();
    }

    /** One delivery of a wake-up: {@code requeued}, {@code gone} or {@code failed}. */
    public void requeue(String outcome) {
        requeues.labelValues(outcome).inc();
    }

    public double requeues(String outcome) {
        return requeues.labelValues(outcome).get();
    }

    public double failures(String verb, String reason) {
        return failures.labelValues(verb, reason).get();
    }

    public String contentType() { return writer.getContentType(); }

    public void write(OutputStream out) throws IOException {
        writer.write(out, registry.scrape());
    }
}
