package io.mpshare.scheduler.policy;

import io.mpshare.core.ledger.Ledger;
import io.mpshare.core.model.GpuDemand;
import io.mpshare.core.model.PodKey;
import io.mpshare.core.policy.PlacementEngine;
import io.mpshare.core.policy.PlacementEngine.NodeScore;
import io.mpshare.core.policy.TaskMix;
import io.mpshare.kube.KubePod;
import io.mpshare.scheduler.TestClock;
import io.mpshare.testing.Nodes;
import io.mpshare.testing.Pods;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The default policy with host CPU and memory: the learned mix carries them, and they move prioritize and bind. */
class LearnedHostPolicyTest {
    private final TestClock clock = new TestClock();
    private final HostRoom host = new HostRoom();
    private final Ledger ledger = new Ledger(clock, Duration.ofMinutes(5));

    private void node(String name, String cpu) {
        var n = Nodes.node(name).gpus(1, 16_384).allocatable(cpu, "64Gi");
        ledger.upsertNode(n.inventory());
        host.applyNode(n.build());
    }

    @Test void observe_podsWithRequests_mixEntriesCarryTheirCpuAndMemory() {
        var p = new LearnedFragmentationPolicy(false, host, LearnedFragmentationPolicy.PRIOR, 10, 4);
        for (int i = 0; i < 4; i++) {
            host.applyPod(KubePod.of(Pods.pod("p" + i).cpu(i < 3 ? "4" : "500m").memory("16Gi").build()));
            p.observe(PodKey.of("default", "p" + i), GpuDemand.simple(8_192, 0, 1, 512));
        }
        observeUnseen(p); // a pod the pod informer never showed: no CPU or memory
        assertThat(p.current().mix().entries())
                .extracting(TaskMix.Entry::cpuMilli, TaskMix.Entry::memoryMib, TaskMix.Entry::weight)
                .containsExactlyInAnyOrder(org.assertj.core.groups.Tuple.tuple(4_000L, 16_384L, 0.6),
                        org.assertj.core.groups.Tuple.tuple(500L, 16_384L, 0.2), org.assertj.core.groups.Tuple.tuple(0L, 0L, 0.2));
    }

    private static void observeUnseen(LearnedFragmentationPolicy p) {
        for (int i = 0; i < 4; i++) p.observe(PodKey.of("other", "q"), GpuDemand.simple(8_192 + i, 0, 1, 512)); // 4 new demands: one rebuild
    }

    /**
     * Two nodes equal on GPUs (one 16 GiB GPU, empty); the mix asks 8 GiB GPU pods with 4 cores. n1 has 6 cores:
     * after the 3-core pod, the 8 GiB pods could not come any more, so its free GPU share is stranded; n2 has 16.
     * With host CPU n2 alone gets the top score; once a bound pod takes most of n2's CPU and n1 grows, n1 does; the GPU-only policy
     * (same mix) ranks the two the same way both times. Bind books on the chosen node with the same inputs.
     */
    @Test void prioritizeAndAssume_cpuShortNode_loses_gpuOnlyDoesNotSee() { cpuShortNodeLoses(false); }

    /**
     * The same with scores remembered per node version, as the extender runs ({@link LearnedFragmentationPolicy#touchOnHostChange}):
     * scored twice before the host room moves (so the second answer came from the board), the answers after it still
     * follow the new room: each change touched its node.
     */
    @Test void prioritize_scoresRemembered_hostRoomChangeTouchesTheNode_newRoomSeen() { cpuShortNodeLoses(true); }

    private void cpuShortNodeLoses(boolean remembered) {
        var mix = new TaskMix(List.of(new TaskMix.Entry(1, 8_192 + 512, 0, 0, 4_000, 0, 1)));
        var policy = new LearnedFragmentationPolicy(false, host, mix, 1, Integer.MAX_VALUE);
        if (remembered) policy.touchOnHostChange(ledger);
        node("n1", "6");
        node("n2", "16");
        host.applyPod(KubePod.of(Pods.pod("p").cpu("3").memory("1Gi").build()));
        PodKey key = PodKey.of("default", "p");
        GpuDemand d = GpuDemand.simple(4_096, 0, 1, 512);
        var withHost = new PlacementEngine(ledger, policy);
        var gpuOnly = new PlacementEngine(ledger, policy.current());
        List<String> both = List.of("n1", "n2");

        for (int i = 0; i < 3; i++)
            assertThat(withHost.prioritize(d, both, key)).containsExactly(new NodeScore("n1", 0), new NodeScore("n2", PlacementEngine.MAX_SCORE));
        var gpuOnlyBefore = gpuOnly.prioritize(d, both, key);

        host.applyPod(KubePod.of(Pods.pod("big").cpu("12").on("n2").phase("Running").build())); // n2: 4 cores left, 1 after the pod
        host.applyNode(Nodes.node("n1").gpus(1, 16_384).allocatable("16", "64Gi").build());  // n1 resized: 13 after the pod
        assertThat(withHost.prioritize(d, both, key)).containsExactly(new NodeScore("n1", PlacementEngine.MAX_SCORE), new NodeScore("n2", 0));
        assertThat(gpuOnly.prioritize(d, both, key)).isEqualTo(gpuOnlyBefore);
        assertThat(withHost.assume(key, "u", "n1", d)).isInstanceOf(io.mpshare.core.ledger.AssumeResult.Assumed.class);
    }
}
