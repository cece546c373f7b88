package io.mpshare.policing.metrics;

import io.mpshare.core.ledger.Allocation;
import io.mpshare.core.ledger.Phase;
import io.mpshare.core.model.ContainerShare;
import io.mpshare.core.model.GpuDemand;
import io.mpshare.core.model.PodKey;
import io.mpshare.core.codec.UsageCodec;
import io.mpshare.policing.CycleReport;
import io.mpshare.policing.Finding;
import io.mpshare.policing.Snapshot;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/** Every metric the policer exports is in docs/metrics.md, and the dashboard uses only documented metrics. */
class MetricsDocsTest {
    static final Path ROOT = Path.of("..");
    static final Pattern NAME = Pattern.compile("mpshare_[a-z0-9_]+");

    static Set<String> exported() {
        var registry = new PrometheusRegistry();
        var m = new PolicerMetrics(registry, "n1");
        var a = new Allocation(PodKey.of("ml", "p"), "uid-p", "n1", List.of(0), List.of("GPU-0"),
                new GpuDemand(1, 2560, 30, 512, 2048, List.of(new ContainerShare("main", false, 2048, 30)), OptionalLong.empty()),
                Instant.EPOCH, Phase.ASSIGNED);
        var proc = new Snapshot.ProcessSample(7, 100, Snapshot.Role.NOT_MPS, Optional.empty());
        var gpu = new Snapshot.GpuSample(0, "GPU-0", 1000, 100, true, true, "", List.of(proc));
        var unknown = new Finding.Unknown(0, proc);
        var t = Instant.EPOCH;
        m.cycle(new CycleReport(new Snapshot(t, List.of(gpu)), Map.of("uid-p", a), List.of(unknown), List.of(),
                Map.of("uid-p", new UsageCodec.PodUsage(t, List.of(new UsageCodec.GpuUsage(0, 2560, 0, 0)), List.of()))), 0);
        m.finding(unknown);
        m.action("event", "unknown_process");
        m.failure("terminate");
        m.cycleFailed();
        Set<String> names = new TreeSet<>();
        for (var s : registry.scrape())
            names.add(s.getMetadata().getPrometheusName() + (s instanceof CounterSnapshot ? "_total" : ""));
        return names;
    }

    @Test
    void everyExportedMetric_isDocumented() throws IOException {
        String doc = Files.readString(ROOT.resolve("docs/metrics.md"));
        Set<String> names = exported();
        assertThat(names).hasSizeGreaterThan(15);
        for (String n : names) assertThat(doc).as("docs/metrics.md lists " + n).contains("`" + n + "`");
    }

    @Test
    void dashboard_usesOnlyDocumentedMetrics() throws IOException {
        String doc = Files.readString(ROOT.resolve("docs/metrics.md"));
        String dash = Files.readString(ROOT.resolve("charts/mpshare/dashboards/mpshare.json"));
        var m = NAME.matcher(dash);
        Set<String> used = new TreeSet<>();
        while (m.find()) used.add(m.group().replaceAll("_(bucket|sum|count)$", "")); // a histogram's series
        assertThat(used).isNotEmpty();
        for (String n : used) assertThat(doc).as("dashboard metric " + n + " is documented").contains("`" + n + "`");
    }
}
