package io.mpshare.scheduler.cluster;

import io.fabric8.kubernetes.api.model.Pod;
import io.mpshare.core.MemoryUnit;
import io.mpshare.core.Names;
import io.mpshare.core.codec.AllocationCodec;
import io.mpshare.core.isolation.FaultDomains;
import io.mpshare.core.isolation.FaultDomains.Kind;
import io.mpshare.core.ledger.Allocation;
import io.mpshare.core.ledger.Ledger;
import io.mpshare.core.ledger.Phase;
import io.mpshare.core.model.DemandResolver;
import io.mpshare.core.model.GpuDemand;
import io.mpshare.core.model.PodKey;
import io.mpshare.core.model.ServingDomain;
import io.mpshare.kube.KubePod;
import io.mpshare.scheduler.cycle.AskReader;
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

    /** A restored booking serves in the domain its namespace's kind gives, as the bind that booked it placed it (the pod's own label aside). */
    @Test void applyPod_restoredBooking_getsItsNamespacesServingDomain() {
        var asks = new AskReader(MemoryUnit.GIB, new DemandResolver(0, MemoryUnit.GIB),
                ns -> FaultDomains.kindOf(ns, ns.equals("default") ? "tenant" : null, Kind.NODE));
        var tenants = new ClusterView(null, ledger, MemoryUnit.GIB, null, Duration.ofSeconds(30), (pod, demand) -> { }, p -> true, asks);
        tenants.applyNode(Nodes.node("n1").gpus(2, 16_384).build());
        Pod pod = Pods.pod("p").uid("u1").gpuMem(7).on("n1").runAsUser(1000).label(Names.LABEL_FAULT_DOMAIN, "node")
                .annotations(AllocationCodec.encode(alloc("n1", 1, clock.instant(), Phase.BOUND), MemoryUnit.GIB)).build();
        tenants.applyPod(KubePod.of(pod));
        assertThat(ledger.allocation(P)).get().satisfies(a -> assertThat(a.demand().domain()).isEqualTo(new ServingDomain(Kind.TENANT, "default/1000")));
        assertThat(ledger.node("n1").domainsOn(1)).isEqualTo(1);
        // the Binding's echo (the same pod again) is the same placement: nothing rebooked
        tenants.applyPod(KubePod.of(pod));
        assertThat(ledger.allocations()).hasSize(1);
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

    @Test void applyPod_malformedAnnotation_countedNotBooked() {
        view.applyNode(Nodes.node("n1").gpus(2, 16_384).build());
        view.applyPod(KubePod.of(Pods.pod("p").uid("u1").gpuMem(7).on("n1").annotation(Names.ANN_ALLOCATION, "v1;node=n1;gpus=x").build()));
        assertThat(ledger.allocation(P)).isEmpty();
        assertThat(view.malformedAllocations()).isEqualTo(1);
    }
    /** The review's squat pod: asks no GPU, never bound, a scheduler no one runs, a whole GPU pair as ASSIGNED: books nothing. */
    @Test void applyPod_forgedSquat_noGpuAskPendingOtherScheduler_changesNothing() {
        view.applyNode(Nodes.node("n1").gpus(2, 143_771).build());
        Pod squat = Pods.pod("squat").namespace("team-x").uid("u-squat")
                .annotation(Names.ANN_ALLOCATION, "v1;node=n1;gpus=0,1;uuids=GPU-n1-0,GPU-n1-1;reserve=0;charge=143000/100;c=main:143000:100")
                .annotation(Names.ANN_ASSIGNED, "true").build();
        squat.getSpec().setSchedulerName("no-such-scheduler");
        view.applyPod(KubePod.of(squat));
        squat.getSpec().setNodeName("n1"); // allowed for a pod that asks no GPU
        view.applyPod(KubePod.of(squat));
        assertThat(ledger.allocations()).isEmpty();
        assertThat(ledger.node("n1").allocatedMib()).isZero();
    }

    /** Charges of Long.MAX_VALUE on a pod that asks 7 GiB: the demand comes from its resources, so the annotation is refused. */
    @Test void applyPod_forgedHugeCharges_disagreeWithResources_notCounted_noWrap() {
        view.applyNode(Nodes.node("n1").gpus(2, 143_771).build());
        for (String name : List.of("max-a", "max-b")) {
            Pod p = Pods.pod(name).uid("u-" + name).gpuMem(7).on("n1").annotation(Names.ANN_ALLOCATION,
                    "v1;node=n1;gpus=0;uuids=GPU-n1-0;reserve=512;charge=" + Long.MAX_VALUE + "/0;c=main:" + Long.MAX_VALUE + ":0").build();
            view.applyPod(KubePod.of(p));
        }
        assertThat(ledger.node("n1").allocatedMib(0)).isZero();
        assertThat(view.distrustedAllocations() + view.malformedAllocations()).isEqualTo(2);
    }

    /** A pending pod's annotation (ASSIGNED or not) books nothing: the extender's own reach a pod only inside its Binding. */
    @Test void applyPod_pendingWithAnnotation_notBooked_evenAssigned() {
        view.applyNode(Nodes.node("n1").gpus(2, 16_384).build());
        Pod pod = annotated(alloc("n1", 0, clock.instant(), Phase.ASSIGNED), null);
        view.applyPod(KubePod.of(pod));
        assertThat(ledger.allocation(P)).isEmpty();
    }

    /** An annotation for another node than the pod is bound to, or on a pod of a profile this extender does not place. */
    @Test void applyPod_otherNodeOrOtherScheduler_notCounted() {
        var only = new ClusterView(null, ledger, MemoryUnit.GIB, null, Duration.ofSeconds(30), (pod, demand) -> { },
                p -> p.schedulerName().equals("mpshare-scheduler"), new AskReader(MemoryUnit.GIB, new DemandResolver(0, MemoryUnit.GIB)));
        only.applyNode(Nodes.node("n1").gpus(2, 16_384).build());
        only.applyNode(Nodes.node("n2").gpus(2, 16_384).build());
        Pod elsewhere = annotated(alloc("n1", 0, clock.instant(), Phase.BOUND), "n2");
        elsewhere.getSpec().setSchedulerName("mpshare-scheduler");
        only.applyPod(KubePod.of(elsewhere));
        assertThat(ledger.allocation(P)).isEmpty();
        Pod other = annotated(alloc("n1", 0, clock.instant(), Phase.BOUND), "n1");
        other.getSpec().setSchedulerName("default-scheduler");
        only.applyPod(KubePod.of(other));
        assertThat(ledger.allocation(P)).isEmpty();
        other.getSpec().setSchedulerName("mpshare-scheduler");
        only.applyPod(KubePod.of(other));
        assertThat(ledger.allocation(P)).isPresent();
        assertThat(only.distrustedAllocations() + only.malformedAllocations()).isEqualTo(2);
    }

    /** A pod whose own resources ask more than the GPU it names holds: refused, not booked past the GPU's size. */
    @Test void applyPod_chargeAboveTheGpusSize_notCounted() {
        view.applyNode(Nodes.node("n1").gpus(2, 16_384).build());
        var big = new Allocation(P, "u1", "n1", List.of(0), List.of("GPU-n1-0"), GpuDemand.simple(20 * 1024, 0, 1, 512), clock.instant(), Phase.BOUND);
        view.applyPod(KubePod.of(Pods.pod("p").uid("u1").gpuMem(20).on("n1").annotations(AllocationCodec.encode(big, MemoryUnit.GIB)).build()));
        assertThat(ledger.allocation(P)).isEmpty();
        assertThat(view.distrustedAllocations()).isEqualTo(1);
    }

    /** The demand booked is the one derived from the pod's resources: an annotation that says less is not counted. */
    @Test void applyPod_annotationBooksLessThanTheResourcesAsk_notCounted() {
        view.applyNode(Nodes.node("n1").gpus(2, 16_384).build());
        var small = new Allocation(P, "u1", "n1", List.of(0), List.of("GPU-n1-0"), GpuDemand.simple(1024, 0, 1, 512), clock.instant(), Phase.BOUND);
        view.applyPod(KubePod.of(Pods.pod("p").uid("u1").gpuMem(7).on("n1").annotations(AllocationCodec.encode(small, MemoryUnit.GIB)).build()));
        assertThat(ledger.allocation(P)).isEmpty();
    }
}
