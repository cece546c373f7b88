package io.mpshare.inspect;

import io.mpshare.core.MemoryUnit;
import io.mpshare.core.codec.DomainsCodec;
import io.mpshare.core.isolation.FaultDomains;
import io.mpshare.core.model.PodKey;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.time.Instant;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class ReportRendererTest {
    private final GpuReport report = GpuReport.of(List.of(Fixtures.nodeB(), Fixtures.nodeA()), List.of(Fixtures.wide(), Fixtures.sample()),
            Map.of(PodKey.of("default", "mps-sample"), Fixtures.sampleUsage()), List.of());
    private final ReportRenderer gib = new ReportRenderer(MemoryUnit.GIB);

    @Test
    void table_perGpuAndNodeTotals_withSummary() {
        assertThat(gib.table(report, false)).isEqualTo("""
                NODE   GPU  MODEL                  ALLOCATED/TOTAL (GiB)  USED (GiB)  PODS
                gpu-a  0    NVIDIA H200            12/140.4 (9%)          6           2
                       1    NVIDIA H200            4.5/140.4 (3%)         -           1
                       all                         16.5/280.8 (6%)        6
                gpu-b  0    NVIDIA T4 (unhealthy)  0/15 (0%)              -           0
                --------------------------------------------------------------------------
                Allocated/Total GPU memory in cluster: 16.5/295.8 GiB (6%), used 6 GiB; 2 node(s), 3 GPU(s), 2 pod(s)
                """);
    }

    @Test
    void table_details_listsPodsUnderEachGpu() {
        String t = gib.table(report, true);
        assertThat(t).contains("""
                gpu-a  0    NVIDIA H200            12/140.4 (9%)          6           2
                              default/mps-sample   7.5                    6           assigned
                              team/wide            4.5                    -           bound
                       1    NVIDIA H200            4.5/140.4 (3%)         -           1
                              team/wide            4.5                    -           bound
                """);
    }

    @Test
    void table_problems_printedAsWarnings() {
        var r = GpuReport.of(List.of(Fixtures.nodeB()), List.of(), Map.of(), List.of("node x: mpshare.io/gpus cannot be read"));
        assertThat(gib.table(r, false)).endsWith("warning: node x: mpshare.io/gpus cannot be read\n");
    }

    @Test
    void of_podOnGpuTheNodeDoesNotList_isAProblem() {
        var r = GpuReport.of(List.of(Fixtures.nodeB()), List.of(new io.mpshare.core.ledger.Allocation(PodKey.of("x", "y"), "", "gpu-b",
                List.of(3), List.of("GPU-gone"), io.mpshare.core.model.GpuDemand.simple(1024, 0, 1, 0), Fixtures.AT,
                io.mpshare.core.ledger.Phase.BOUND)), Map.of(), List.of());
        assertThat(r.problems()).containsExactly("pod x/y is booked on GPU 3 of node gpu-b, which the node does not list");
    }

    @Test
    void json_carriesMiBAndNullForUnreported() {
        JsonNode j = JsonMapper.builder().build().readTree(gib.json(report));
        assertThat(j.get("summary").get("allocatedMiB").asLong()).isEqualTo(7680 + 2 * 4608);
        assertThat(j.get("summary").get("usedMiB").asLong()).isEqualTo(6144);
        JsonNode a0 = j.get("nodes").get(0).get("gpus").get(0);
        assertThat(a0.get("uuid").asString()).isEqualTo("GPU-a0");
        assertThat(a0.get("pods").get(0).get("name").asString()).isEqualTo("mps-sample");
        assertThat(a0.get("pods").get(1).get("usedMiB").isNull()).isTrue();
    }

    @Test
    void mem_mibUnit_printsWholeMiB() {
        assertThat(new ReportRenderer(MemoryUnit.MIB).mem(7680)).isEqualTo("7680");
        assertThat(gib.mem(7680)).isEqualTo("7.5");
    }

    /** gpu-a as its device plugin publishes mpshare.io/domains: team's domain faulted on GPU 0, a suspect held. */
    static final Map<String, DomainsCodec.NodeDomains> DOMAINS = Map.of("gpu-a", new DomainsCodec.NodeDomains(Fixtures.AT, List.of(
            new DomainsCodec.Domain(0, "t-3f2a9c0d1e7b", FaultDomains.Kind.TENANT, "FAULTED", 1, 2, Instant.parse("2026-11-30T02:58:03Z"), "team/1000"),
            new DomainsCodec.Domain(1, "t-0a1b2c3d4e5f", FaultDomains.Kind.TENANT, "SERVING", 1, 0, null, "team/1000")),
            List.of(new DomainsCodec.Suspect("team/Job/train", Instant.parse("2026-11-30T03:58:03Z")))));

    @Test
    void table_domains_perGpuWithDetails_notServingAndSuspectsAlways() {
        var r = GpuReport.of(List.of(Fixtures.nodeA()), List.of(Fixtures.wide(), Fixtures.sample()), Map.of(), DOMAINS, List.of());
        assertThat(gib.table(r, true)).contains("domain t-0a1b2c3d4e5f (tenant team/1000) on gpu-a GPU 1: SERVING, 1 pod\n");
        String plain = gib.table(r, false);
        assertThat(plain).contains("domain t-3f2a9c0d1e7b (tenant team/1000) on gpu-a GPU 0: FAULTED, 1 pod, 2 faults, last 2026-11-30T02:58:03Z\n")
                .doesNotContain("t-0a1b2c3d4e5f")
                .contains("fault suspect on gpu-a: team/Job/train (its new pods get an MPS domain of their own until 2026-11-30T03:58:03Z)\n");
        JsonNode j = JsonMapper.builder().build().readTree(gib.json(r));
        JsonNode d = j.get("nodes").get(0).get("gpus").get(0).get("domains").get(0);
        assertThat(d.get("id").asString()).isEqualTo("t-3f2a9c0d1e7b");
        assertThat(d.get("state").asString()).isEqualTo("FAULTED");
        assertThat(d.get("faults").asLong()).isEqualTo(2);
        assertThat(j.get("nodes").get(0).get("suspects").get(0).get("workload").asString()).isEqualTo("team/Job/train");
    }
}
