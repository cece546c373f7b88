package io.mpshare.sim.openb;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;

/** The paper's DotProd and GpuClustering scores, as its simulator computes them. */
class PaperPoliciesTest {
    static OpenbTrace.Task task(long cpu, int num, int milli) { return new OpenbTrace.Task("t", cpu, 1024, num, milli, Set.of()); }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = ';', value = {
            // 1 - (64/128 * 8/128 + 4/8 * 1/8) / 2 = 0.953125
            "half-free node, one GPU;   64000;  4000; 8000;   1; 1000; 95",
            "full-size node and task;   128000; 8000; 128000; 8; 1000; 0",
            "CPU-only task;             128000; 8000; 64000;  0; 0;    75",
            "share: counts its milli;   128000; 8000; 0;      1; 400;  97",
    })
    void dotProd_score(String name, long cpuLeft, int gpuLeft, long cpu, int num, int milli, long score) {
        assertThat(PaperPolicies.DotProd.score(cpuLeft, gpuLeft, task(cpu, num, milli))).isEqualTo(score);
    }

    @Test
    void dotProd_choose_prefersTheNodeWithLessLeft() {
        var nodes = List.of(new OpenbTrace.Node("big", 96000, 393216, 8, "G2"), new OpenbTrace.Node("small", 16000, 65536, 2, "T4"));
        var p = new PaperPolicies.DotProd().choose(new Cluster(nodes, null), task(4000, 1, 500), new SplittableRandom(1));
        assertThat(p.node()).isEqualTo(1);
        assertThat(p.gpus()).containsExactly(0);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = ';', value = {
            "idle node, 8 GPUs free;            0;  8000; 0; 25",
            "idle node, 2 GPUs free;            0;  2000; 0; 43", // 25 * 6000 / 8000 = 18 (integers) + 25
            "only shares run there;             1;  7500; 0; 76", // 25 * 500 / 8000 = 1, + 75
            "shares among 1-GPU tasks;          3;  4000; 0; 62", // 12 + 50
            "only 1-GPU tasks, a share comes;   2;  4000; 0; 12",
            "only 8-GPU tasks, an 8-GPU comes;  256; 0;   8; 100",
    })
    void gpuClustering_score(String name, long kinds, int gpuLeft, int kind, long score) {
        assertThat(PaperPolicies.GpuClustering.score(kinds, gpuLeft, kind)).isEqualTo(score);
    }

    @Test
    void gpuClustering_shareFollowsShares_wholeGpuAvoidsThem() {
        var nodes = List.of(new OpenbTrace.Node("a", 32000, 131072, 4, "T4"), new OpenbTrace.Node("b", 32000, 131072, 4, "T4"));
        var c = new Cluster(nodes, null);
        var policy = new PaperPolicies.GpuClustering();
        var share = task(1000, 1, 300);
        var first = policy.choose(c, share, new SplittableRandom(1));
        c.place(first.node(), share, first.gpus());
        policy.placed(c, share, first);
        var second = policy.choose(c, share, new SplittableRandom(1));
        assertThat(second.node()).isEqualTo(first.node());
        var whole = policy.choose(c, task(1000, 1, 1000), new SplittableRandom(1));
        assertThat(whole.node()).isNotEqualTo(first.node()); // an idle node (25..50) beats one running only shares (0..25)
    }

    @Test
    void policies_parseAll_isThePapersSixThenTheDefault() {
        assertThat(Policies.parse("all")).extracting(p -> p.label)
                .containsExactly("Random", "DotProd", "GpuClustering", "GpuPacking", "BestFit", "FGD (paper)", "mpshare default");
        assertThat(Policies.parse("dotprod,gpuclustering")).containsExactly(Policies.DOTPROD, Policies.GPUCLUSTERING);
    }
}
