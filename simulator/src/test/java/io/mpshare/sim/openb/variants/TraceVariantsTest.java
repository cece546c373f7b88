package io.mpshare.sim.openb.variants;

import io.mpshare.sim.openb.OpenbTrace;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class TraceVariantsTest {
    /** A small default-like trace: CPU-only, shares, whole GPUs, 2- and 8-GPU tasks. */
    static List<OpenbTrace.Task> base() {
        List<OpenbTrace.Task> out = new ArrayList<>();
        for (int i = 0; i < 400; i++) {
            int kind = i % 10;
            if (kind == 0) out.add(new OpenbTrace.Task("c" + i, 8000 + i, 1024, 0, 0, Set.of()));
            else if (kind <= 4) out.add(new OpenbTrace.Task("s" + i, 4000, 2048, 1, 100 * kind + 50, Set.of()));
            else if (kind <= 8 || i % 40 != 9) out.add(new OpenbTrace.Task("w" + i, 8000, 4096, 1, 1000, Set.of()));
            else out.add(new OpenbTrace.Task("m" + i, 32000, 65536, i % 80 == 9 ? 8 : 2, 1000, Set.of()));
        }
        return out;
    }

    static List<OpenbTrace.Node> nodes() {
        return List.of(new OpenbTrace.Node("a", 96000, 393216, 8, "G2"), new OpenbTrace.Node("b", 104000, 524288, 2, "T4"),
                new OpenbTrace.Node("c", 64000, 262144, 2, "P100"));
    }

    @ParameterizedTest
    @CsvSource({"gpushare20", "gpushare60", "gpushare100"})
    void generate_gpushare_sharingTasksAskThePercentOfTheGpuShareWithTheGpuTaskCountKept(String name) {
        Variant v = Variant.parse(name);
        TaskShapes b = TaskShapes.of(base()), g = TaskShapes.of(TraceVariants.generate(base(), nodes(), v, 7));
        assertEquals(b.gpuTasks(), g.gpuTasks());
        assertEquals(b.cpuOnlyCpu(), g.cpuOnlyCpu());
        assertEquals(v.percent() / 100.0, g.sharingAskShare(), 0.02);
    }

    @ParameterizedTest
    @CsvSource({"multigpu20", "multigpu50"})
    void generate_multigpu_addsMultiGpuTasksUntilTheyAskThePercent(String name) {
        Variant v = Variant.parse(name);
        List<OpenbTrace.Task> g = TraceVariants.generate(base(), nodes(), v, 7);
        TaskShapes s = TaskShapes.of(g);
        assertEquals(v.percent() / 100.0, s.multiAskShare(), 0.02);
        for (int i = 0; i < base().size(); i++) assertEquals(base().get(i).gpuAsk(), g.get(i).gpuAsk(), "the default's tasks come first, unchanged");
        assertTrue(g.subList(base().size(), g.size()).stream().allMatch(t -> t.numGpu() > 1));
    }

    @Test
    void generate_multigpuBelowTheBaseShare_saysWhatToChoose() {
        var e = assertThrows(IllegalArgumentException.class, () -> TraceVariants.generate(base(), nodes(), Variant.parse("multigpu1"), 1));
        assertTrue(e.getMessage().contains("choose a multigpu level above"), e.getMessage());
    }

    @Test
    void generate_gpuspec_constrainsThePercentOfGpuTasksToModelsWithEnoughGpus() {
        List<OpenbTrace.Task> g = TraceVariants.generate(base(), nodes(), Variant.parse("gpuspec25"), 3);
        TaskShapes s = TaskShapes.of(g);
        assertEquals(0.25, s.specShare(), 0.005);
        for (OpenbTrace.Task t : g)
            if (t.numGpu() == 8 && !t.gpuSpec().isEmpty()) assertTrue(t.gpuSpec().contains("G2"), t + " can only run on the 8-GPU G2 node");
        assertEquals(TaskShapes.of(base()).gpuAsk(), s.gpuAsk(), "only constraints change");
    }

    @ParameterizedTest
    @CsvSource({"cpu050, 6950000", "cpu250, 34750000"})
    void generate_cpu_addsCpuOnlyTasksUntilTheirCpuIsReached(String name, long cpu) {
        List<OpenbTrace.Task> g = TraceVariants.generate(base(), nodes(), Variant.parse(name), 5);
        TaskShapes s = TaskShapes.of(g);
        assertTrue(s.cpuOnlyCpu() >= cpu && s.cpuOnlyCpu() < cpu + 9000, "CPU-only CPU " + s.cpuOnlyCpu());
        assertEquals(TaskShapes.of(base()).gpuTasks(), s.gpuTasks());
    }

    @Test
    void generate_sameSeed_sameTrace_otherSeed_otherTrace() {
        Variant v = Variant.parse("gpushare40");
        assertEquals(TraceVariants.generate(base(), nodes(), v, 1), TraceVariants.generate(base(), nodes(), v, 1));
        assertNotEquals(TraceVariants.generate(base(), nodes(), v, 1), TraceVariants.generate(base(), nodes(), v, 2));
    }

    @ParameterizedTest
    @CsvSource({"cpu050, cpu050", "CPU100, cpu100", "gpushare40, gpushare40", "gpuspec33, gpuspec33"})
    void parse_paperNames_roundTrip(String in, String name) { assertEquals(name, Variant.parse(in).name()); }

    @ParameterizedTest
    @CsvSource({"gpushare", "shared40", "gpushare101", "multigpu100"})
    void parse_badName_saysWhatToWrite(String in) {
        var e = assertThrows(IllegalArgumentException.class, () -> Variant.parse(in));
        assertTrue(e.getMessage().contains("gpushare") || e.getMessage().contains("percentage"), e.getMessage());
    }
}
