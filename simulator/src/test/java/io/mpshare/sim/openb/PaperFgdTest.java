package io.mpshare.sim.openb;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/** The paper's FGD: typical tasks with their GPU models, and a fragmentation that counts a model a task cannot use. */
class PaperFgdTest {
    static OpenbTrace.Task task(long cpu, int num, int milli, Set<String> spec) {
        return new OpenbTrace.Task("t", cpu, 1024, num, milli, spec);
    }

    static List<OpenbTrace.Task> times(int n, OpenbTrace.Task t) {
        List<OpenbTrace.Task> out = new ArrayList<>();
        for (int i = 0; i < n; i++) out.add(t);
        return out;
    }

    @Test
    void typical_constrainedAndFreeTasksOfOneSize_areTwoShapes() {
        List<OpenbTrace.Task> tasks = new ArrayList<>(times(6, task(4000, 1, 500, Set.of())));
        tasks.addAll(times(4, task(4000, 1, 500, Set.of("V100M32", "T4"))));
        var typical = PaperFgd.typical(tasks);
        assertThat(typical).containsExactly(
                new PaperFgd.Typical(4000, 500, 1, Set.of(), 0.6),
                new PaperFgd.Typical(4000, 500, 1, Set.of("T4", "V100M32"), 0.4));
    }

    @Test
    void typical_shapesAddedUntil95PercentCovered_weightsOverCovered() {
        List<OpenbTrace.Task> tasks = new ArrayList<>(times(90, task(1000, 1, 1000, Set.of())));
        tasks.addAll(times(6, task(2000, 0, 0, Set.of())));
        tasks.addAll(times(4, task(3000, 1, 200, Set.of("T4"))));
        var typical = PaperFgd.typical(tasks);
        assertThat(typical).hasSize(2); // 90 + 6 = 96 >= 95; the 4 constrained tasks are left out
        assertThat(typical.get(0).weight()).isCloseTo(90 / 96.0, within(1e-12));
        assertThat(typical.get(1)).isEqualTo(new PaperFgd.Typical(2000, 0, 0, Set.of(), 6 / 96.0));
    }

    @Test
    void modelsKey_sortedModels_emptyForCpuOnly() {
        assertThat(PaperFgd.modelsKey(task(1, 1, 500, Set.of("V100M32", "P100", "T4")))).isEqualTo("P100|T4|V100M32");
        assertThat(PaperFgd.modelsKey(task(1, 0, 0, Set.of("T4")))).isEmpty();
    }

    /** Node: 2 GPUs with 300 and 1000 free, 8 cores free; one typical task of half a GPU on 1 core. */
    @Test
    void frag_nodeModelTheTaskCannotUse_countsAllFreeShare() {
        var fgd = new PaperFgd(List.of(new PaperFgd.Typical(1000, 500, 1, Set.of("V100M32"), 1.0)));
        int[] left = {300, 1000};
        assertThat(fgd.frag(8000, left, fgd.access("V100M32"))).isEqualTo(300.0); // the 300 too small for it
        assertThat(fgd.frag(8000, left, fgd.access("T4"))).isEqualTo(1300.0);    // all of it: the task may not run here
        assertThat(fgd.frag(500, left, fgd.access("V100M32"))).isEqualTo(1300.0); // lacks CPU
    }

    @Test
    void frag_cpuOnlyAndUnconstrainedTypicals_weighted() {
        var fgd = new PaperFgd(List.of(new PaperFgd.Typical(1000, 0, 0, Set.of(), 0.25),
                new PaperFgd.Typical(1000, 1000, 1, Set.of(), 0.75)));
        int[] left = {300, 1000};
        assertThat(fgd.frag(8000, left, fgd.access("T4"))).isEqualTo(0.25 * 1300 + 0.75 * 300);
    }

    /** The kept per-node counts give the same fragmentation as recomputing it, on random states and moves. */
    @Test
    void fragAfter_randomStates_equalsRecomputed() {
        SplittableRandom rnd = new SplittableRandom(7);
        var typical = List.of(new PaperFgd.Typical(2000, 300, 1, Set.of(), 0.3), new PaperFgd.Typical(8000, 1000, 2, Set.of("T4"), 0.3),
                new PaperFgd.Typical(1000, 0, 0, Set.of(), 0.2), new PaperFgd.Typical(4000, 700, 1, Set.of("A10", "V100M32"), 0.2));
        var nodes = List.of(new OpenbTrace.Node("a", 32000, 65536, 4, "T4"), new OpenbTrace.Node("b", 16000, 65536, 8, "V100M32"));
        for (int round = 0; round < 200; round++) {
            Cluster c = new Cluster(nodes, null);
            var fgd = new PaperFgd(typical);
            int i = rnd.nextInt(2);
            for (int g = 0; g < c.gpuLeft[i].length; g++) c.gpuLeft[i][g] = rnd.nextBoolean() ? 1000 : rnd.nextInt(1001);
            c.cpuLeft[i] = rnd.nextInt(33) * 1000L;
            int g = rnd.nextInt(c.gpuLeft[i].length), from = c.gpuLeft[i][g], to = rnd.nextInt(from + 1);
            long cpuAfter = c.cpuLeft[i] - rnd.nextInt(4) * 1000L;
            double incremental = fgd.fragAfter(c, i, cpuAfter, 1, from, to);
            int[] after = c.gpuLeft[i].clone();
            after[g] = to;
            assertThat(incremental).as("round %d", round).isCloseTo(fgd.frag(cpuAfter, after, fgd.access(nodes.get(i).model())), within(1e-9));
        }
    }

    /**
     * Two equal nodes, V100M32 first in the order; half the typical tasks may only use V100M32. An unconstrained
     * share lowers fragmentation more on the T4 (whose free share those tasks count as lost anyway), so FGD
     * keeps the V100M32 for them. (Blind to models, the scores tie and the first node, the V100M32, wins.)
     */
    @Test
    void choose_unconstrainedShare_goesWhereConstrainedTasksCannotRun() {
        var nodes = List.of(new OpenbTrace.Node("v", 16000, 65536, 2, "V100M32"), new OpenbTrace.Node("t", 16000, 65536, 2, "T4"));
        List<OpenbTrace.Task> trace = new ArrayList<>(times(5, task(1000, 1, 1000, Set.of("V100M32"))));
        trace.addAll(times(5, task(1000, 1, 500, Set.of())));
        var p = PaperFgd.of(trace).choose(new Cluster(nodes, null), task(1000, 1, 500, Set.of()), new SplittableRandom(1));
        assertThat(p.node()).isEqualTo(1);
    }
}
