package io.mpshare.deviceplugin.cluster;

import io.mpshare.core.model.PodKey;
import io.mpshare.kube.node.Distrust;
import io.mpshare.kube.node.NodeBookings;
import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.model.registry.PrometheusRegistry;

/**
 * {@code mpshare_node_bookings_refused_total}: pods' allocation annotations this node did not count (docs/metrics.md),
 * by reason; above 0 means an annotation disagreed with its pod (edited by hand, or a tenant tried to raise its share).
 */
public final class BookingRefusals implements NodeBookings.Refusals {
    private final String node;
    private final Counter refused;

    public BookingRefusals(PrometheusRegistry registry, String node) {
        this.node = node;
        this.refused = Counter.builder().name("mpshare_node_bookings_refused_total")
                .help("Pod allocation annotations the node did not count (checked against the pod's own resources), by reason")
                .labelNames("node", "reason").register(registry);
    }

    @Override public void refused(PodKey pod, Distrust why) { refused.labelValues(node, why.label()).inc(); }

    /** How many were refused for {@code why} so far. */
    public long count(Distrust why) { return (long) refused.labelValues(node, why.label()).get(); }
}
