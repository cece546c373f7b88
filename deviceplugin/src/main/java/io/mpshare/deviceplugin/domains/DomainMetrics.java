package io.mpshare.deviceplugin.domains;

import io.mpshare.core.isolation.FaultDomains.Kind;
import io.mpshare.deviceplugin.domains.DomainPlan.Member;
import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.Gauge;
import io.prometheus.metrics.model.registry.PrometheusRegistry;

import java.util.EnumMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The fault domains' metrics (docs/metrics.md, "Fault domains"): faults and stalls per domain kind, faults per namespace
 * and per pod (series that name namespaces and pods only when {@code podSeries}: where the chart's NetworkPolicy keeps
 * the metrics port to the scrapers), the domains per state and the suspects held.
 */
public final class DomainMetrics {
    private final String node;
    private final boolean podSeries;
    private final Counter faults, namespaceFaults, podFaults, stalls;
    private final Gauge domains, suspects;

    public DomainMetrics(PrometheusRegistry registry, String node, boolean podSeries) {
        this.node = node;
        this.podSeries = podSeries;
        this.faults = Counter.builder().name("mpshare_domain_faults_total")
                .help("Faults of MPS fault domains' servers on this node (every client of the server was ended), by domain kind")
                .labelNames("node", "kind").register(registry);
        this.namespaceFaults = Counter.builder().name("mpshare_namespace_domain_faults_total")
                .help("MPS domain faults that reached pods of the namespace (once per fault)").labelNames("node", "namespace").register(registry);
        this.podFaults = Counter.builder().name("mpshare_pod_domain_faults_total")
                .help("MPS domain faults the pod was present in").labelNames("node", "namespace", "pod").register(registry);
        this.stalls = Counter.builder().name("mpshare_domain_stalls_total")
                .help("Times an MPS domain's control daemon stopped answering while it may have had clients, by domain kind")
                .labelNames("node", "kind").register(registry);
        this.domains = Gauge.builder().name("mpshare_domains").help("MPS fault domains of this node's pods, by state")
                .labelNames("node", "state").register(registry);
        this.suspects = Gauge.builder().name("mpshare_domain_fault_suspects")
                .help("Workloads held as fault suspects (their new pods get a domain of their own)").labelNames("node").register(registry);
    }

    /** A fault of a domain of {@code kind} that had {@code pods}. */
    public void fault(Kind kind, List<Member> pods) {
        faults.labelValues(node, kind.label()).inc();
        if (!podSeries) return;
        Set<String> namespaces = new LinkedHashSet<>();
        for (Member m : pods) {
            namespaces.add(m.pod().namespace());
            podFaults.labelValues(node, m.pod().namespace(), m.pod().name()).inc();
        }
        for (String ns : namespaces) namespaceFaults.labelValues(node, ns).inc();
    }

    public void stalled(Kind kind) { stalls.labelValues(node, kind.label()).inc(); }

    /** The domains of this node's pods per state, and the suspects, after a round. */
    public void observe(DomainsView v) {
        Map<DomainReport.State, Integer> perState = new EnumMap<>(DomainReport.State.class);
        v.plan().keySet().forEach(k -> {
            DomainReport r = v.report(k);
            perState.merge(r == null ? DomainReport.State.UNKNOWN : r.state(), 1, Integer::sum);
        });
        for (DomainReport.State s : DomainReport.State.values()) domains.labelValues(node, s.name()).set(perState.getOrDefault(s, 0));
        suspects.labelValues(node).set(v.suspects().size());
    }

    /** How many faults of {@code kind} were counted (tests). */
    public long faults(Kind kind) { return (long) faults.labelValues(node, kind.label()).get(); }

    /** How many faults the pod was present in (tests). */
    public long podFaults(String namespace, String pod) { return (long) podFaults.labelValues(node, namespace, pod).get(); }

    /** How many faults reached the namespace (tests). */
    public long namespaceFaults(String namespace) { return (long) namespaceFaults.labelValues(node, namespace).get(); }
}
