package io.mpshare.sim.openb;

import org.junit.jupiter.api.Test;

import java.io.StringReader;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class GpuSpecTracesTest {
    static final List<OpenbTrace.Node> NODES = List.of(new OpenbTrace.Node("t", 104000, 524288, 2, "T4"),
            new OpenbTrace.Node("g", 96000, 393216, 8, "G2"));

    static List<OpenbTrace.Task> trace() {
        List<OpenbTrace.Task> tasks = new ArrayList<>();
        for (int i = 0; i < 80; i++) tasks.add(new OpenbTrace.Task("s" + i, 4000, 8192, 1, 100 + i, Set.of()));
        for (int i = 0; i < 20; i++) tasks.add(new OpenbTrace.Task("w" + i, 88000, 327680, 8, 1000, Set.of()));
        for (int i = 0; i < 30; i++) tasks.add(new OpenbTrace.Task("c" + i, 2000, 4096, 0, 0, Set.of()));
        return tasks;
    }

    @Test
    void constrain_quarter_constrainsAQuarterOfGpuTasks_andChangesNothingElse() {
        var in = trace();
        var out = GpuSpecTraces.constrain(in, NODES, 0.25, 3);
        assertThat(out).hasSameSizeAs(in);
        assertThat(out.stream().filter(t -> !t.gpuSpec().isEmpty()).count()).isEqualTo(25);
        for (int i = 0; i < in.size(); i++) {
            var a = in.get(i);
            var b = out.get(i);
            assertThat(new OpenbTrace.Task(b.name(), b.cpuMilli(), b.memoryMib(), b.numGpu(), b.gpuMilli(), Set.of())).isEqualTo(a);
            if (a.numGpu() == 0) assertThat(b.gpuSpec()).isEmpty();
        }
    }

    @Test
    void constrain_eightGpuTasks_getOnlySpecsWithAnEightGpuModel() {
        var out = GpuSpecTraces.constrain(trace(), NODES, 1.0, 5);
        for (var t : out) {
            if (t.numGpu() == 8) assertThat(t.gpuSpec()).contains("G2");
            if (t.numGpu() == 1) assertThat(t.gpuSpec()).containsAnyOf("T4", "G2");
        }
    }

    @Test
    void constrain_sameSeedSameTrace_otherSeedOther() {
        assertThat(GpuSpecTraces.constrain(trace(), NODES, 0.33, 1)).isEqualTo(GpuSpecTraces.constrain(trace(), NODES, 0.33, 1));
        assertThat(GpuSpecTraces.constrain(trace(), NODES, 0.33, 1)).isNotEqualTo(GpuSpecTraces.constrain(trace(), NODES, 0.33, 2));
    }

    @Test
    void constrain_shareOutOfRange_saysWhatToChange() {
        assertThatThrownBy(() -> GpuSpecTraces.constrain(trace(), NODES, 1.5, 1)).hasMessage("--share must be between 0 and 1, got 1.5");
        var onlyT4 = List.of(NODES.getFirst()); // 8-GPU tasks fit no T4 node: at most 80 of 100 GPU tasks can be constrained
        assertThatThrownBy(() -> GpuSpecTraces.constrain(trace(), onlyT4, 0.9, 1))
                .hasMessage("only 80 of 100 GPU tasks can carry a spec; ask a smaller --share");
    }

    @Test
    void write_readsBackAsTheSameTasks() throws Exception {
        var out = GpuSpecTraces.constrain(trace(), NODES, 0.5, 9);
        var w = new StringWriter();
        GpuSpecTraces.write(out, w);
        assertThat(OpenbTrace.readTasks(new StringReader(w.toString()), "gen.csv")).isEqualTo(out);
    }
}
