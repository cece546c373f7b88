package io.mpshare.core.policy;

import io.mpshare.core.ledger.AssumeResult;
import io.mpshare.core.ledger.Ledger;
import io.mpshare.core.model.Gpu;
import io.mpshare.core.model.GpuDemand;
import io.mpshare.core.model.NodeInventory;
import io.mpshare.core.model.PodKey;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Hand-worked examples. GPUs of 1000 MiB, so MiB read as thousandths of a GPU; demands ask no cores.
 */
class FragmentationPolicyTest {
    static Ledger ledger(int[]... gpusUsedPerNode) {
        Ledger l = new Ledger(InstantSource.fixed(Instant.EPOCH), Duration.ofMinutes(5));
        for (int n = 0; n < gpusUsedPerNode.length; n++) {
            String node = "node-" + (char) ('a' + n);
            List<Gpu> gpus = new ArrayList<>();
            for (int g = 0; g < gpusUsedPerNode[n].length; g++) gpus.add(new Gpu(g, "GPU-" + node + g, "T", 1000, true));
            l.upsertNode(new NodeInventory(node, gpus));
            for (int g = 0; g < gpusUsedPerNode[n].length; g++) {
                int used = gpusUsedPerNode[n][g];
                if (used == 0) continue;
                int target = g;
                PlacementPolicy onGpu = new PlacementPolicy() {
                    @Override public String name() { return "pin"; }
                    @Override public Evaluation evaluate(io.mpshare.core.ledger.NodeState s, GpuDemand d) { return new Evaluation.Fits(new int[] {target}, 0); }
                };
                AssumeResult r = l.assume(PodKey.of("t", node + "-" + g), "", node, mib(used, 1), onGpu);
                assertThat(r).isInstanceOf(AssumeResult.Assumed.class);
            }
        }
        return l;
    }

    static GpuDemand mib(long mib, int gpus) { return GpuDemand.simple(mib * gpus, 0, gpus, 0); }

    static TaskMix mix(TaskMix.Entry... e) { return new TaskMix(List.of(e)); }

    /**
     * Node a has 700 free, node b 600; the mix expects tasks of 600. A task of 100 on b leaves 500 there,
     * which no expected task can use: fragmentation grows by 500. On a it leaves 600, still usable: no growth.
     * Best fit takes b; FGD takes a.
     */
    @Test
    void bestNode_prefersTheNodeWhereTheMixStillFits() {
        Ledger l = ledger(new int[] {300}, new int[] {400});
        var fgd = new PlacementEngine(l, new FragmentationPolicy(mix(new TaskMix.Entry(1, 600, 0, 0, 0, 0, 1))));
        var binpack = new PlacementEngine(l, new BinpackPolicy());
        assertThat(fgd.bestNode(mib(100, 1), List.of("node-a", "node-b"))).isEqualTo("node-a");
        assertThat(binpack.bestNode(mib(100, 1), List.of("node-a", "node-b"))).isEqualTo("node-b");
    }

    /** Within a node: GPU 0 has 700 free, GPU 1 has 600. The same reasoning picks GPU 0, and bind books it. */
    @Test
    void evaluate_picksTheGpuThatKeepsRoomForTheMix_andAssumeBooksIt() {
        Ledger l = ledger(new int[] {300, 400});
        var policy = new FragmentationPolicy(mix(new TaskMix.Entry(1, 600, 0, 0, 0, 0, 1)));
        var e = (Evaluation.Fits) policy.evaluate(l.node("node-a"), mib(100, 1));
        assertThat(e.positions()).containsExactly(0);
        var r = (AssumeResult.Assumed) new PlacementEngine(l, policy).assume(PodKey.of("t", "new"), "", "node-a", mib(100, 1));
        assertThat(r.allocation().gpuIndices()).containsExactly(0);
    }

    /**
     * Mix: half of the tasks want 2 whole GPUs. Node a has 2 free GPUs, node b has 3. A 1-GPU task on a
     * strands its last free GPU for the 2-GPU tasks (+500 weighted); on b two free GPUs remain (+0).
     */
    @Test
    void bestNode_keepsPairsOfWholeGpusForMultiGpuTasks() {
        Ledger l = ledger(new int[] {1000, 0, 0}, new int[] {0, 0, 0});
        var mix = mix(new TaskMix.Entry(1, 1000, 0, 0, 0, 0, 1), new TaskMix.Entry(2, 1000, 0, 0, 0, 0, 1));
        var engine = new PlacementEngine(l, new FragmentationPolicy(mix));
        assertThat(engine.bestNode(mib(1000, 1), List.of("node-a", "node-b"))).isEqualTo("node-b");
    }

    /**
     * With host CPU known: the mix's tasks ask 4 cores. A GPU task asking 3 cores on a node with 6 free would
     * leave 3: every free GPU there becomes a fragment. The node with 16 free CPUs wins although equal on GPUs.
     */
    @Test
    void evaluate_withHostCpu_avoidsStrandingGpusWithoutCpu() {
        Ledger l = ledger(new int[] {0, 0}, new int[] {0, 0});
        var policy = new FragmentationPolicy(mix(new TaskMix.Entry(1, 500, 0, 0, 4000, 0, 1)));
        var tight = (Evaluation.Fits) policy.evaluate(l.node("node-a"), mib(500, 1), 6000, 3000);
        var roomy = (Evaluation.Fits) policy.evaluate(l.node("node-b"), mib(500, 1), 16000, 3000);
        assertThat(roomy.score()).isGreaterThan(tight.score());
        assertThat(policy.hostScore(l.node("node-b"), 16000, 3000)).isGreaterThan(policy.hostScore(l.node("node-a"), 6000, 3000));
    }

    /** Host memory likewise: the mix's tasks ask 64 GiB; leaving 48 GiB on a node strands its GPUs. */
    @Test
    void evaluate_withHostMemory_avoidsStrandingGpusWithoutMemory() {
        Ledger l = ledger(new int[] {0, 0}, new int[] {0, 0});
        var policy = new FragmentationPolicy(mix(new TaskMix.Entry(1, 500, 0, 0, 0, 65536, 1)));
        var tight = (Evaluation.Fits) policy.evaluate(l.node("node-a"), mib(500, 1), 64000, 1000, 81920, 32768);
        var roomy = (Evaluation.Fits) policy.evaluate(l.node("node-b"), mib(500, 1), 64000, 1000, 204800, 32768);
        assertThat(roomy.score()).isGreaterThan(tight.score());
        assertThat(policy.hostScore(l.node("node-b"), 64000, 1000, 204800, 32768))
                .isGreaterThan(policy.hostScore(l.node("node-a"), 64000, 1000, 81920, 32768));
    }

    @Test
    void evaluate_tooLittleRoom_isUnfitWithAReason() {
        Ledger l = ledger(new int[] {900});
        var policy = new FragmentationPolicy(mix(new TaskMix.Entry(1, 600, 0, 0, 0, 0, 1)));
        assertThat(policy.evaluate(l.node("node-a"), mib(200, 1))).isInstanceOf(Evaluation.Unfit.class);
    }

    /**
     * Three idle nodes of 8, 2 and 4 GPUs; every task takes one whole GPU, so a one-GPU pod increases no
     * node's fragmentation. Packing sends it to the smallest node (node-b); the default orders equal nodes by
     * the hash of their names (node-a first here), the same order whatever order the nodes are asked in.
     */
    @Test
    void bestNode_equalIncreases_goByNameHashByDefault_andToTheFullestNodeWhenPacking() {
        Ledger l = ledger(new int[8], new int[2], new int[4]);
        var mix = mix(new TaskMix.Entry(1, 1000, 0, 0, 0, 0, 1));
        List<String> names = List.of("node-a", "node-b", "node-c");
        assertThat(names.stream().map(FragmentationPolicy::nameRank).distinct().count()).isEqualTo(3);
        String lowestRank = names.stream().min(java.util.Comparator.comparingLong(FragmentationPolicy::nameRank)).orElseThrow();
        var hashed = new PlacementEngine(l, new FragmentationPolicy(mix));
        var packing = new PlacementEngine(l, new FragmentationPolicy(mix, FragmentationPolicy.DEFAULT_TOLERANCE, false, FragmentationPolicy.TieBreak.PACKING));
        assertThat(hashed.bestNode(mib(1000, 1), names)).isEqualTo(lowestRank);
        assertThat(hashed.bestNode(mib(1000, 1), names.reversed())).isEqualTo(lowestRank);
        assertThat(lowestRank).isNotEqualTo("node-b");
        assertThat(packing.bestNode(mib(1000, 1), names)).isEqualTo("node-b");
    }

    @Test
    void taskMix_ofDemands_mergesEqualDemandsAndNormalises() {
        var m = TaskMix.ofDemands(List.of(mib(100, 1), mib(100, 1), mib(1000, 2)));
        assertThat(m.entries()).hasSize(2);
        assertThat(m.entries().get(0).weight()).isEqualTo(2.0 / 3);
        assertThat(m.entries().get(1).gpuCount()).isEqualTo(2);
    }
}
