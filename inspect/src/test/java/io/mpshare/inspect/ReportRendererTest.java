package io.mpshare.inspect;

import io.mpshare.core.MemoryUnit;
import io.mpshare.core.model.PodKey;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

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
}
