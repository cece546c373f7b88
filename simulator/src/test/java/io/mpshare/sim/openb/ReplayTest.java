package io.mpshare.sim.openb;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

class ReplayTest {
    static final GpuModels MODELS = new GpuModels();

    /**
     * One node with one GPU; every task asks half of it. Arrivals: 50% (placed), 100% (placed), 150% (fails:
     * no room) - the replay stops once arrivals pass 130%. Ratio 100%; curve 50% at 50..99, 100% after.
     */
    @ParameterizedTest
    @EnumSource(Policies.class)
    void run_halfGpuTasks_accountsAllocationAndFailures(Policies p) {
        var nodes = List.of(new OpenbTrace.Node("n", 8000, 16384, 1, "T4"));
        var tasks = List.of(new OpenbTrace.Task("half", 1000, 1024, 1, 500, Set.of()));
        var r = Replay.run("tiny", p.cliName, nodes, tasks, p.create(nodes, MODELS, tasks), 42, 1.30);
        assertThat(r.ratio()).isEqualTo(1.0);
        assertThat(r.arrived()).isEqualTo(3);
        assertThat(r.failed()).isEqualTo(1);
        assertThat(r.failedGpuAsk()).isEqualTo(500);
        assertThat(r.curve()).hasSize(131);
        assertThat(r.curve()[0]).isZero();
        assertThat(r.curve()[49]).isEqualTo(0.5); // first task crossed 1..50% at once
        assertThat(r.curve()[50]).isEqualTo(0.5);
        assertThat(r.curve()[51]).isEqualTo(1.0);
        assertThat(r.curve()[130]).isEqualTo(1.0);
    }

    @Test
    void run_cpuOnlyTasks_takeCpuButNoGpuShare() {
        var nodes = List.of(new OpenbTrace.Node("n", 4000, 16384, 1, "T4"));
        var tasks = List.of(new OpenbTrace.Task("cpu", 3000, 1024, 0, 0, Set.of()),
                new OpenbTrace.Task("gpu", 2000, 1024, 1, 1000, Set.of()));
        for (Policies p : Policies.values()) {
            var r = Replay.run("cpu", p.cliName, nodes, tasks, p.create(nodes, MODELS, tasks), 7, 1.30);
            assertThat(r.ratio()).as(p.cliName).isBetween(0.0, 1.0);
            assertThat(r.arrived()).as(p.cliName).isGreaterThanOrEqualTo(2);
        }
    }

    @ParameterizedTest
    @EnumSource(Policies.class)
    void run_sameSeed_sameCurve(Policies p) throws Exception {
        var nodes = OpenbTrace.readNodes(OpenbTraceTest.fixture("nodes.csv"));
        var tasks = OpenbTrace.readTasks(OpenbTraceTest.fixture("tasks.csv"));
        var a = Replay.run("f", p.cliName, nodes, tasks, p.create(nodes, MODELS, tasks), 43, 1.30);
        var b = Replay.run("f", p.cliName, nodes, tasks, p.create(nodes, MODELS, tasks), 43, 1.30);
        assertThat(b.curve()).containsExactly(a.curve());
        assertThat(b.arrived()).isEqualTo(a.arrived());
        for (int k = 1; k < a.curve().length; k++) assertThat(a.curve()[k]).isGreaterThanOrEqualTo(a.curve()[k - 1]);
        assertThat(a.ratio()).isCloseTo(a.curve()[130], within(1e-12));
    }

    @Test
    void experiment_runsEveryPolicyAndSeed_andSummarises() throws Exception {
        var nodes = OpenbTrace.readNodes(OpenbTraceTest.fixture("nodes.csv"));
        var tasks = OpenbTrace.readTasks(OpenbTraceTest.fixture("tasks.csv"));
        var o = Experiment.run(nodes, MODELS, List.of(new Experiment.Trace("f", tasks)), List.of(Policies.values()), List.of(1L, 2L, 3L), 2, 1.30);
        assertThat(o.results()).hasSize(3 * Policies.values().length);
        assertThat(o.stats()).hasSize(Policies.values().length);
        for (var s : o.stats()) assertThat(s.min()).isLessThanOrEqualTo(s.mean()).isLessThanOrEqualTo(s.max());
        String html = ReplayReport.html(o);
        assertThat(html).contains("<svg").contains("mpshare default").doesNotContain("<script");
        assertThat(ReplayReport.table(o)).contains("bestfit");
    }

    @Test
    void parseSeeds_rangesAndLists() {
        assertThat(ReplayRun.parseSeeds("42-45")).containsExactly(42L, 43L, 44L, 45L);
        assertThat(ReplayRun.parseSeeds("1,5")).containsExactly(1L, 5L);
    }
}
