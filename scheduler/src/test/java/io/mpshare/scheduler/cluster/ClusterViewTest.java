package io.mpshare.scheduler.cluster;

import io.fabric8.kubernetes.api.model.Pod;
import io.mpshare.core.MemoryUnit;
import io.mpshare.core.Names;
import io.mpshare.core.codec.AllocationCodec;
import io.mpshare.core.ledger.Allocation;
import io.mpshare.core.ledger.Ledger;
import io.mpshare.core.ledger.Phase;
import io.mpshare.core.model.GpuDemand;
import io.mpshare.core.model.PodKey;
import io.mpshare.kube.KubePod;
import io.mpshare.scheduler.TestClock;
import io.mpshare.testing.Nodes;
import io.mpshare.testing.Pods;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The informer handlers on their own: events in, ledger out (no API server; informers are not started). */
class ClusterViewTest {
    private final TestClock clock = new TestClock();
    private final Ledger ledger = new Ledger(clock, Duration.ofMinutes(5));
    private final ClusterView view = new ClusterView(null, ledger, MemoryUnit.GIB, null, Duration.ofSeconds(30), (pod, demand) -> { });
    private static final PodKey P = PodKey.of("default", "p");

    private Allocation alloc(String node, int gpu, Instant at, Phase phase) {
        return new Allocation(P, "u1", node, List.of(gpu), List.of("GPU-" + node + "-" + gpu), GpuDemand.simple(7 * 1024, 0, 1, 512), at, phase);
    }

    private Pod annotated(Allocation a, String boundTo) {
        return Pods.pod("p").uid("u1").gpuMem(7).on(boundTo).annotations(AllocationCodec.encode(a, MemoryUnit.GIB)).build();
    }

    @Test void applyNode_inventoryPublished_gpusKnown_badInventory_noGpus() {
        view.applyNode(Nodes.node("n1").gpus(8, 143_771).build());
        view.applyNode(Nodes.node("n2").rawInventory("garbage").build());
        view.applyNode(Nodes.node("n3").noInventory().build());
        assertThat(ledger.node("n1").gpuCount()).isEqualTo(8);
        assertThat(ledger.node("n2").gpuCount()).isZero();
        assertThat(ledger.node("n3").gpuCount()).isZero();
        view.removeNode(Nodes.node("n1").build());
        assertThat(ledger.node("n1")).isNull();
    }

    @Test void applyPod_ourAnnotation_bound_restoredAsBound() {
        view.applyNode(Nodes.node("n1").gpus(2, 16_384).build());
        view.applyPod(KubePod.of(annotated(alloc("n1", 1, clock.instant(), Phase.ASSUMED), "n1")));
        assertThat(ledger.allocation(P)).get().satisfies(a -> {
            assertThat(a.phase()).isEqualTo(Phase.BOUND);
            assertThat(a.gpuIndices()).containsExactly(1);
        });
        assertThat(ledger.node("n1").allocatedMib(1)).isEqualTo(7 * 1024 + 512);
    }

    @Test void applyPod_ackAnnotation_counted() {
        view.applyNode(Nodes.node("n1").gpus(2, 16_384).build());
        view.applyPod(KubePod.of(Pods.pod("p").uid("u1").gpuMem(4).on("n1").annotation(Names.ACK_GPU_MEM_IDX, "0").annotation(Names.ACK_GPU_MEM_POD, "4").build()));
        assertThat(ledger.node("n1").allocatedMib(0)).isEqualTo(4 * 1024);
    }

    @Test void applyPod_finished_releases_deleteOfOtherUid_ignored() {
        view.applyNode(Nodes.node("n1").gpus(2, 16_384).build());
        Pod pod = annotated(alloc("n1", 0, clock.instant(), Phase.BOUND), "n1");
        view.applyPod(KubePod.of(pod));
        view.forgetPod(KubePod.of(Pods.pod("p").uid("someone-else").build()));
        assertThat(ledger.allocation(P)).isPresent();
        pod.getStatus().setPhase("Succeeded");
        view.applyPod(KubePod.of(pod));
        assertThat(ledger.allocation(P)).isEmpty();
        assertThat(ledger.node("n1").allocatedMib()).isZero();
    }

    @Test void applyPod_sameNameNewUidWithoutAnnotation_releasesOldBooking() {
        view.applyNode(Nodes.node("n1").gpus(2, 16_384).build());
        view.applyPod(KubePod.of(annotated(alloc("n1", 0, clock.instant(), Phase.BOUND), "n1")));
        view.applyPod(KubePod.of(Pods.pod("p").uid("u2").gpuMem(7).build()));
        assertThat(ledger.allocation(P)).isEmpty();
    }

    @Test void applyPod_boundBookingWhosePodAsksWhatTodaysRulesRefuse_stillHoldsItsGpus() {
        view.applyNode(Nodes.node("n1").gpus(2, 16_384).build());
        Allocation a = alloc("n1", 1, clock.instant(), Phase.BOUND);
        // 400 percent of cores: the extender refuses such a pod today, yet the booking on its node is real
        view.applyPod(KubePod.of(Pods.pod("p").uid("u1").gpuMem(7).gpuCore(400).on("n1").annotations(AllocationCodec.encode(a, MemoryUnit.GIB)).build()));
        assertThat(ledger.node("n1").allocatedMib(1)).isEqualTo(7 * 1024 + 512);
        assertThat(view.malformedAllocations()).isZero();
    }

    @Test void applyPod_malformedAnnotation_countedNotBooked() {
        view.applyNode(Nodes.node("n1").gpus(2, 16_384).build());
        view.applyPod(KubePod.of(Pods.pod("p").uid("u1").gpuMem(7).on("n1").annotation(Names.ANN_ALLOCATION, "v1;node=n1;gpus=x").build()));
        assertThat(ledger.allocation(P)).isEmpty();
        assertThat(view.malformedAllocations()).isEqualTo(1);
    }
}
