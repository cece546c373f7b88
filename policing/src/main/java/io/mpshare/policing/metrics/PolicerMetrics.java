package io.mpshare.policing.metrics;

import io.mpshare.core.isolation.MpsLimits;
import io.mpshare.core.ledger.Allocation;
import io.mpshare.core.model.ContainerShare;
import io.mpshare.core.codec.UsageCodec;
import io.mpshare.policing.CycleReport;
import io.mpshare.policing.Finding;
import io.mpshare.policing.Snapshot.GpuSample;
import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot.GaugeDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import io.prometheus.metrics.model.snapshots.Unit;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The node agent's Prometheus metrics (names in docs/metrics.md). Gauges are rendered at scrape time
 * from the last {@link CycleReport}, so a pod that left disappears from the next scrape with no
 * label bookkeeping; counters are ordinary {@link Counter}s. Memory is exported in bytes
 * (Prometheus base unit); the policer works in MiB.
 *
 * <p>The per-pod and per-container gauges name every tenant's pods (namespace, pod, container): whoever can scrape them
 * learns where each tenant runs. They are exported only with {@link PodSeries#INCLUDED}, which the device plugin sets
 * where a NetworkPolicy keeps its port to the scrapers ({@code --pod-metrics}, docs/security.md).
 */
public final class PolicerMetrics implements MultiCollector {
    private static final double MIB = 1024.0 * 1024.0;

    /** Whether the gauges that name pods and containers are exported. */
    public enum PodSeries { INCLUDED, LEFT_OUT }

    private final String node;
    private final PodSeries podSeries;
    private final Counter findings, actions, failures, samples, sampleErrors;
    private volatile CycleReport last;
    private volatile double lastSampleSeconds = Double.NaN;

    /** With the per-pod series (a registry nobody scrapes over the network: host mode, tests). */
    public PolicerMetrics(PrometheusRegistry registry, String node) {
        this(registry, node, PodSeries.INCLUDED);
    }

    public PolicerMetrics(PrometheusRegistry registry, String node, PodSeries podSeries) {
        this.node = Objects.requireNonNull(node, "node");
        this.podSeries = Objects.requireNonNull(podSeries, "podSeries");
        findings = Counter.builder().name("mpshare_policer_findings_total")
                .help("Policer findings by kind, counted once per condition (not per cycle)")
                .labelNames("node", "finding").register(registry);
        actions = Counter.builder().name("mpshare_policer_actions_total")
                .help("Policer actions carried out, by action (event, terminate, kill, evict, end_pod) and reason")
                .labelNames("node", "action", "reason").register(registry);
        failures = Counter.builder().name("mpshare_policer_action_failures_total")
                .help("Policer actions that failed or were refused, by action")
                .labelNames("node", "action").register(registry);
        samples = Counter.builder().name("mpshare_policer_samples_total")
                .help("NVML samples taken by the policer").labelNames("node").register(registry);
        sampleErrors = Counter.builder().name("mpshare_policer_sample_errors_total")
                .help("GPUs that could not be read in a sample (not judged that cycle)").labelNames("node").register(registry);
        registry.register(this);
    }

    public void finding(Finding f) { findings.labelValues(node, f.reason()).inc(); }

    public void action(String action, String reason) { actions.labelValues(node, action, reason).inc(); }

    public void failure(String action) { failures.labelValues(node, action).inc(); }

    /** Records a finished cycle: its report backs the gauges from now on. */
    public void cycle(CycleReport report, double epochSeconds) {
        samples.labelValues(node).inc();
        long errors = report.snapshot().gpus().stream().filter(g -> !g.sampled()).count();
        if (errors > 0) sampleErrors.labelValues(node).inc(errors);
        last = report;
        lastSampleSeconds = epochSeconds;
    }

    /** A cycle that failed as a whole (NVML gone): counted as a sample error. */
    public void cycleFailed() { sampleErrors.labelValues(node).inc(); }

    @Override
    public MetricSnapshots collect() {
        CycleReport r = last;
        Gauges g = new Gauges();
        g.add("mpshare_policer_last_sample_timestamp_seconds", "When the policer last sampled NVML (Unix time)",
                Labels.of("node", node), lastSampleSeconds);
        if (r != null) {
            gpus(r, g);
            if (podSeries == PodSeries.INCLUDED) pods(r, g);
        }
        return g.snapshots();
    }

    private void gpus(CycleReport r, Gauges g) {
        Map<Integer, Long> allocated = new HashMap<>();
        for (Allocation a : r.allocations().values())
            for (int i : a.gpuIndices()) allocated.merge(i, a.demand().chargeMib(), Long::sum);
        Map<Integer, long[]> flagged = new HashMap<>(); // [rogue, unknown]
        for (Finding f : r.findings()) {
            if (f instanceof Finding.Rogue) flagged.computeIfAbsent(f.gpu(), k -> new long[2])[0]++;
            if (f instanceof Finding.Unknown) flagged.computeIfAbsent(f.gpu(), k -> new long[2])[1]++;
        }
        for (GpuSample s : r.snapshot().gpus()) {
            Labels l = Labels.of("node", node, "gpu", Integer.toString(s.index()), "uuid", s.uuid());
            g.add("mpshare_gpu_healthy", "1 when the GPU is reported Healthy to kubelet", l, s.healthy() ? 1 : 0);
            g.add("mpshare_gpu_shared", "1 when mpshare shares this GPU", l, s.shared() ? 1 : 0);
            if (!s.sampled()) continue;
            g.add("mpshare_gpu_memory_total_bytes", "GPU memory (NVML)", l, s.totalMib() * MIB);
            g.add("mpshare_gpu_memory_used_bytes", "GPU memory in use, all processes (NVML)", l, s.usedMib() * MIB);
            g.add("mpshare_gpu_memory_allocated_bytes", "GPU memory booked by pods' allocations (requests plus context reserves)",
                    l, allocated.getOrDefault(s.index(), 0L) * MIB);
            if (!s.shared()) continue;
            long[] fl = flagged.getOrDefault(s.index(), new long[2]);
            g.add("mpshare_gpu_mps_clients", "MPS clients on the GPU (NVML)", l, s.mpsClients());
            g.add("mpshare_gpu_rogue_processes", "Pods' processes on the GPU that are not MPS clients or have no allocation there", l, fl[0]);
            g.add("mpshare_gpu_unknown_processes", "GPU processes that belong to no pod", l, fl[1]);
        }
    }

    private void pods(CycleReport r, Gauges g) {
        for (Allocation a : r.allocations().values()) {
            UsageCodec.PodUsage u = r.usage().get(a.podUid());
            String ns = a.pod().namespace(), pod = a.pod().name();
            Map<String, Long> containerUsed = new HashMap<>();
            if (u != null) {
                for (var gu : u.gpus()) {
                    Labels l = Labels.of("node", node, "namespace", ns, "pod", pod, "gpu", Integer.toString(gu.index()));
                    g.add("mpshare_pod_gpu_memory_allocated_bytes", "GPU memory booked for the pod on this GPU", l, gu.allocatedMib() * MIB);
                    g.add("mpshare_pod_gpu_memory_used_bytes", "GPU memory the pod's processes use on this GPU (NVML)", l, gu.usedMib() * MIB);
                }
                for (var cu : u.containers()) containerUsed.merge(cu.name() + "@" + cu.gpu(), cu.usedMib(), Long::sum);
            }
            for (ContainerShare c : a.demand().containers()) {
                for (int gpu : a.gpuIndices()) {
                    Labels l = Labels.of("node", node, "namespace", ns, "pod", pod, "container", c.name(), "gpu", Integer.toString(gpu));
                    g.add("mpshare_container_gpu_memory_allocated_bytes", "The container's MPS memory cap on this GPU (share plus context reserve)",
                            l, MpsLimits.clientCapMib(c.memMibPerGpu(), a.demand().reserveMib()) * MIB);
                    g.add("mpshare_container_gpu_memory_used_bytes", "GPU memory the container's processes use on this GPU (NVML)",
                            l, containerUsed.getOrDefault(c.name() + "@" + gpu, 0L) * MIB);
                    g.add("mpshare_container_gpu_core_percent", "The container's allocated share of the GPU's SMs (MPS active thread percentage)",
                            l, c.corePerGpu());
                }
            }
        }
    }

    /** Collects data points by metric name, then builds one snapshot per name. */
    private static final class Gauges {
        private final Map<String, String> help = new LinkedHashMap<>();
        private final Map<String, List<GaugeDataPointSnapshot>> points = new LinkedHashMap<>();

        void add(String name, String h, Labels labels, double value) {
            help.putIfAbsent(name, h);
            points.computeIfAbsent(name, k -> new ArrayList<>()).add(GaugeDataPointSnapshot.builder().labels(labels).value(value).build());
        }

        MetricSnapshots snapshots() {
            List<MetricSnapshot> out = new ArrayList<>();
            points.forEach((name, ps) -> {
                var b = GaugeSnapshot.builder().name(name).help(help.get(name));
                if (name.endsWith("_bytes")) b.unit(Unit.BYTES);
                if (name.endsWith("_seconds")) b.unit(Unit.SECONDS);
                ps.forEach(b::dataPoint);
                out.add(b.build());
            });
            return new MetricSnapshots(out);
        }
    }
}
