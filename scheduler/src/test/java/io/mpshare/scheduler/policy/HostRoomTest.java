package io.mpshare.scheduler.policy;

import io.mpshare.core.ledger.Allocation;
import io.mpshare.core.ledger.Ledger;
import io.mpshare.core.ledger.NodeState;
import io.mpshare.core.ledger.Phase;
import io.mpshare.core.model.GpuDemand;
import io.mpshare.core.model.PodKey;
import io.mpshare.core.policy.FragmentationPolicy;
import io.mpshare.kube.HostAsk;
import io.mpshare.kube.KubePod;
import io.mpshare.scheduler.TestClock;
import io.mpshare.testing.Nodes;
import io.mpshare.testing.Pods;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class HostRoomTest {
    private static final long UNKNOWN = FragmentationPolicy.CPU_UNKNOWN;
    private final TestClock clock = new TestClock();
    private final Ledger ledger = new Ledger(clock, Duration.ofMinutes(5));
    private final HostRoom room = new HostRoom();

    private NodeState node(String name, String cpu, String mem) {
        var n = Nodes.node(name).gpus(2, 16_384).allocatable(cpu, mem);
        ledger.upsertNode(n.inventory());
        room.applyNode(n.build());
        return ledger.node(name);
    }

    private static PodKey key(String name) { return PodKey.of("default", name); }

    @Test void left_allocatableMinusBoundPods_pendingAndFinishedNotCounted() {
        node("n1", "16", "64Gi");
        room.applyPod(KubePod.of(Pods.pod("a").cpu("2").memory("4Gi").on("n1").phase("Running").build()));
        room.applyPod(KubePod.of(Pods.pod("b").cpu("500m").memory("512Mi").on("n1").phase("Running").build()));
        room.applyPod(KubePod.of(Pods.pod("pending").cpu("8").memory("8Gi").build()));
        room.applyPod(KubePod.of(Pods.pod("done").cpu("4").memory("1Gi").on("n1").phase("Succeeded").build()));
        NodeState s = ledger.node("n1");
        assertThat(room.cpuLeft(s, null)).isEqualTo(16_000 - 2_500);
        assertThat(room.memoryLeft(s, null)).isEqualTo(65_536 - 4_608);
        assertThat(room.ask(key("pending"))).isEqualTo(new HostAsk(8_000, 8_192));
    }

    @Test void left_podFinishesDeletedOrMoves_released() {
        node("n1", "16", "64Gi");
        node("n2", "8", "32Gi");
        var a = Pods.pod("a").uid("u1").cpu("2").memory("4Gi").on("n1").phase("Running");
        room.applyPod(KubePod.of(a.build()));
        room.applyPod(KubePod.of(Pods.pod("b").uid("u2").cpu("3").on("n1").phase("Running").build()));
        room.applyPod(KubePod.of(Pods.pod("b").uid("u2").cpu("3").on("n2").phase("Running").build())); // rebound elsewhere
        assertThat(room.cpuLeft(ledger.node("n1"), null)).isEqualTo(14_000);
        assertThat(room.cpuLeft(ledger.node("n2"), null)).isEqualTo(5_000);
        room.forgetPod(KubePod.of(Pods.pod("a").uid("old").on("n1").build())); // an older pod of that name: ignored
        assertThat(room.cpuLeft(ledger.node("n1"), null)).isEqualTo(14_000);
        room.applyPod(KubePod.of(a.phase("Failed").build()));
        assertThat(room.cpuLeft(ledger.node("n1"), null)).isEqualTo(16_000);
        room.forgetPod(KubePod.of(Pods.pod("b").uid("u2").on("n2").build()));
        assertThat(room.cpuLeft(ledger.node("n2"), null)).isEqualTo(8_000);
    }

    @Test void left_noAllocatable_unknownNeverShort() {
        node("bare", null, null);
        node("cpuOnly", "4", null);
        room.applyPod(KubePod.of(Pods.pod("a").cpu("2").memory("4Gi").on("bare").phase("Running").build()));
        assertThat(room.cpuLeft(ledger.node("bare"), null)).isEqualTo(UNKNOWN);
        assertThat(room.memoryLeft(ledger.node("bare"), null)).isEqualTo(UNKNOWN);
        assertThat(room.cpuLeft(ledger.node("cpuOnly"), null)).isEqualTo(4_000);
        assertThat(room.memoryLeft(ledger.node("cpuOnly"), null)).isEqualTo(UNKNOWN);
        ledger.upsertNode(Nodes.node("unseen").gpus(1, 16_384).inventory()); // no Node event at all
        assertThat(room.cpuLeft(ledger.node("unseen"), null)).isEqualTo(UNKNOWN);
        room.removeNode("cpuOnly");
        assertThat(room.cpuLeft(ledger.node("cpuOnly"), null)).isEqualTo(UNKNOWN);
    }

    @Test void left_extendersOwnBookingNotYetBound_countedWithThePodsAsk_notAgainstItself() {
        node("n1", "16", "64Gi");
        room.applyPod(KubePod.of(Pods.pod("held").cpu("6").memory("6Gi").build())); // pending: its hold is only in the ledger
        assertThat(room.cpuLeft(ledger.node("n1"), null)).isEqualTo(16_000);
        book("held", "n1", Phase.ASSUMED);
        NodeState s = ledger.node("n1");
        assertThat(room.cpuLeft(s, null)).isEqualTo(10_000);
        assertThat(room.memoryLeft(s, null)).isEqualTo(65_536 - 6_144);
        assertThat(room.cpuLeft(s, key("held"))).isEqualTo(16_000); // the pod's own booking never counts against it
        assertThat(room.cpuLeft(s, key("other"))).isEqualTo(10_000);
        // the Binding echoed: now counted as bound, once
        room.applyPod(KubePod.of(Pods.pod("held").cpu("6").memory("6Gi").on("n1").phase("Pending").build()));
        assertThat(room.cpuLeft(ledger.node("n1"), null)).isEqualTo(10_000);
        assertThat(room.cpuLeft(ledger.node("n1"), key("held"))).isEqualTo(16_000);
        ledger.release(key("held"));
        assertThat(room.cpuLeft(ledger.node("n1"), null)).isEqualTo(10_000); // still bound per the informer
    }

    @Test void left_bookingOfAPodNotSeen_countsZero() {
        node("n1", "16", "64Gi");
        book("stranger", "n1", Phase.BOUND);
        assertThat(room.cpuLeft(ledger.node("n1"), null)).isEqualTo(16_000);
    }

    @Test void evaluate_cpuShortForTheMix_choosesTheGpuThatLeavesLessStranded() {
        // a mix of 1-GPU pods asking half a GPU and 4 cores: on a node with 4 cores left after the pod, the
        // rest of the node's GPU share is stranded for the mix if the pod leaves less than 4 cores
        var mix = new io.mpshare.core.policy.TaskMix(List.of(new io.mpshare.core.policy.TaskMix.Entry(1, 0, 500, 0, 4_000, 0, 1)));
        var policy = new FragmentationPolicy(mix);
        node("n1", "6", "64Gi");
        room.applyPod(KubePod.of(Pods.pod("p").cpu("3").build()));
        NodeState s = ledger.node("n1");
        GpuDemand d = GpuDemand.simple(8_192, 0, 1, 0);
        var withHost = room.evaluate(policy::evaluate, s, d, key("p"), room.ask(key("p")));
        var gpuOnly = policy.evaluate(s, d);
        assertThat(withHost).isInstanceOf(io.mpshare.core.policy.Evaluation.Fits.class);
        assertThat(((io.mpshare.core.policy.Evaluation.Fits) withHost).score())
                .isLessThan(((io.mpshare.core.policy.Evaluation.Fits) gpuOnly).score()); // the node's CPU now strands GPU share
    }

    private void book(String pod, String node, Phase phase) {
        NodeState s = ledger.node(node);
        ledger.restore(new Allocation(key(pod), "", node, List.of(0), List.of(s.gpu(0).uuid()),
                GpuDemand.simple(4_096, 0, 1, 0), clock.instant(), phase));
    }
}
