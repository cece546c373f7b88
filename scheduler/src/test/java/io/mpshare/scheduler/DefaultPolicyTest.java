package io.mpshare.scheduler;

import io.mpshare.core.MemoryUnit;
import io.mpshare.core.ledger.Allocation;
import io.mpshare.core.ledger.Ledger;
import io.mpshare.core.ledger.Phase;
import io.mpshare.core.model.GpuDemand;
import io.mpshare.core.model.PodKey;
import io.mpshare.core.policy.BinpackPolicy;
import io.mpshare.core.policy.PlacementEngine;
import io.mpshare.core.policy.PlacementPolicy;
import io.mpshare.scheduler.bind.BindOutcome;
import io.mpshare.scheduler.bind.FakePodApi;
import io.mpshare.scheduler.policy.LearnedFragmentationPolicy;
import io.mpshare.testing.Nodes;
import io.mpshare.testing.Pods;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The extender's default policy (fragmentation, mix learned from seen pods) on a hand-made two-node case
 * where it and best fit disagree: prioritize ranks the node it prefers first, bind books the GPU it prefers.
 *
 * <p>GPUs of 16 GiB (16,384 MiB). The cluster has run 8 GiB pods only (8,704 MiB charged with the context
 * reserve). n1: one GPU with 9,000 MiB free; n2: GPU 0 with 9,000 free and GPU 1 with 14,000 free. The new
 * pod asks 4 GiB (4,608 charged). Best fit takes a 9,000 GPU (4,392 left: no 8 GiB pod fits there any
 * more). Fragmentation takes n2's GPU 1: 9,392 left still takes an 8 GiB pod, nothing is stranded.
 */
class DefaultPolicyTest {
    private final TestClock clock = new TestClock();

    private Ledger cluster() {
        Ledger l = new Ledger(clock, Duration.ofMinutes(5));
        l.upsertNode(Nodes.node("n1").gpus(1, 16_384).inventory());
        l.upsertNode(Nodes.node("n2").gpus(2, 16_384).inventory());
        book(l, "used-1", "n1", 0, 16_384 - 9_000);
        book(l, "used-2", "n2", 0, 16_384 - 9_000);
        book(l, "used-3", "n2", 1, 16_384 - 14_000);
        return l;
    }

    private void book(Ledger l, String pod, String node, int gpu, long mib) {
        String uuid = l.node(node).gpu(l.node(node).position(gpu)).uuid();
        l.restore(new Allocation(PodKey.of("default", pod), "", node, List.of(gpu), List.of(uuid),
                GpuDemand.simple(mib, 0, 1, 0), clock.instant(), Phase.BOUND));
    }

    private static LearnedFragmentationPolicy learnedFromEightGibPods() {
        PlacementPolicy p = SchedulerExtender.policy(SchedulerExtender.DEFAULT_POLICY, false);
        assertThat(p).isInstanceOf(LearnedFragmentationPolicy.class);
        var learned = (LearnedFragmentationPolicy) p;
        for (int i = 0; i < LearnedFragmentationPolicy.DEFAULT_REBUILD_EVERY; i++)
            learned.observe(PodKey.of("default", "seen-" + i), GpuDemand.simple(8 * 1024, 0, 1, 512));
        assertThat(learned.current().mix().entries()).hasSize(1);
        return learned;
    }

    @Test void defaultPolicy_prioritizeAndBind_followFragmentation_notBestFit() {
        Ledger ledger = cluster();
        var verbs = Wiring.verbs(new PlacementEngine(ledger, learnedFromEightGibPods()));
        GpuDemand pod = GpuDemand.simple(4 * 1024, 0, 1, 512);

        assertThat(verbs.engine().filter(pod, List.of("n1", "n2")).fits()).containsExactly("n1", "n2");
        assertThat(verbs.engine().prioritize(pod, List.of("n1", "n2")))
                .containsExactly(new PlacementEngine.NodeScore("n1", 0), new PlacementEngine.NodeScore("n2", PlacementEngine.MAX_SCORE));

        var api = new FakePodApi();
        api.put(Pods.pod("p").uid("u1").gpuMem(4).build());
        assertThat(Wiring.binder(verbs, api).bind("default", "p", "u1", "n2")).isInstanceOf(BindOutcome.Bound.class);
        assertThat(ledger.allocation(PodKey.of("default", "p"))).get().extracting(Allocation::gpuIndices).isEqualTo(List.of(1));

        // the same case under best fit goes elsewhere: the test tells the policies apart
        var binpack = new PlacementEngine(cluster(), new BinpackPolicy());
        assertThat(binpack.ledger().node("n2").gpuIndex(binpack.policy().evaluate(binpack.ledger().node("n2"), pod)
                instanceof io.mpshare.core.policy.Evaluation.Fits f ? f.positions()[0] : -1)).isEqualTo(0);
    }

    @Test void beforeAnyGpuPod_thePriorMix_andTheWindowIsBounded() {
        var p = new LearnedFragmentationPolicy(false, 3, 1);
        assertThat(p.current().mix()).isSameAs(LearnedFragmentationPolicy.PRIOR);
        for (int i = 0; i < 10; i++) p.observe(PodKey.of("default", "p" + i), GpuDemand.simple((1 + i) * 1024L, 0, 1, 512));
        assertThat(p.current().mix().entries()).hasSize(3)
                .allSatisfy(e -> assertThat(e.mibPerGpu()).isGreaterThanOrEqualTo(8 * 1024 + 512));
        assertThat(p.fitsByRoom(GpuDemand.simple(1024, 0, 1, 512))).isTrue();
    }

    @Test void policyNames() {
        assertThat(SchedulerExtender.policy("binpack", false).name()).isEqualTo("binpack");
        assertThat(SchedulerExtender.policy("spread", false).name()).isEqualTo("spread");
        assertThat(SchedulerExtender.policy("fragmentation", false).name()).isEqualTo("fragmentation");
        assertThat(ExtenderConfig.defaults().policy()).isEqualTo("fragmentation");
    }
}
