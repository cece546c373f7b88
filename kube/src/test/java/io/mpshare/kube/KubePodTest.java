package io.mpshare.kube;

import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodConditionBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.mpshare.core.MemoryUnit;
import io.mpshare.core.Names;
import io.mpshare.core.codec.AllocationCodec;
import io.mpshare.core.ledger.Allocation;
import io.mpshare.core.ledger.Phase;
import io.mpshare.core.model.ContainerRequest;
import io.mpshare.core.model.Gpu;
import io.mpshare.core.model.GpuDemand;
import io.mpshare.core.model.NodeInventory;
import io.mpshare.core.model.PodKey;
import io.mpshare.testing.Pods;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.time.Instant;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class KubePodTest {
    private static final NodeInventory INV = new NodeInventory("n1", List.of(new Gpu(0, "GPU-a", "H200", 143_771, true), new Gpu(1, "GPU-b", "H200", 143_771, true)));

    @ParameterizedTest(name = "phase {0}: finished {1}")
    @CsvSource(nullValues = "null", value = {"Succeeded, true", "Failed, true", "Running, false", "Pending, false", "Unknown, false", "null, false"})
    void finished_onlySucceededOrFailed(String phase, boolean finished) {
        assertThat(KubePod.of(Pods.pod("p").phase(phase).build()).finished()).isEqualTo(finished);
    }

    @Test
    void accessors_unsetFields_haveTheirKubernetesDefaults() {
        Pod p = new PodBuilder().withNewMetadata().withName("p").endMetadata().build(); // no namespace, spec or status
        KubePod k = KubePod.of(p);
        assertThat(k.key()).isEqualTo(PodKey.of("", "p"));
        assertThat(k.uid()).isEmpty();
        assertThat(k.nodeName()).isNull();
        assertThat(k.phase()).isNull();
        assertThat(k.deleting()).isFalse();
        assertThat(k.schedulerName()).isEmpty();
        assertThat(k.priority()).isZero();
        assertThat(k.nominatedNodeName()).isNull();
        assertThat(k.ready()).isFalse();
        assertThat(k.labels()).isEmpty();
        assertThat(k.annotations()).isEmpty();
        assertThat(k.owners()).isEmpty();
        assertThat(k.images()).isEmpty();
        assertThat(k.facts().containers()).isEmpty();
        assertThat(k.hostAsk()).isEqualTo(HostAsk.NONE);
    }

    @Test
    void accessors_setFields_readAsWritten() {
        Pod p = Pods.pod("p").namespace("ml").uid("u1").on("n1").phase("Running").gpuMem(7).build();
        p.getSpec().setSchedulerName("mpshare");
        p.getSpec().setPriority(1000);
        p.getStatus().setNominatedNodeName("");
        p.getStatus().setConditions(List.of(new PodConditionBuilder().withType("Ready").withStatus("True").build()));
        p.getMetadata().setDeletionTimestamp("2026-12-01T12:00:00Z");
        p.getMetadata().setOwnerReferences(List.of(new OwnerReferenceBuilder().withKind("DaemonSet").withName("mps-blue").build()));
        KubePod k = KubePod.of(p);
        assertThat(k.key()).isEqualTo(PodKey.of("ml", "p"));
        assertThat(k.uid()).isEqualTo("u1");
        assertThat(k.nodeName()).isEqualTo("n1");
        assertThat(k.running()).isTrue();
        assertThat(k.deleting()).isTrue();
        assertThat(k.schedulerName()).isEqualTo("mpshare");
        assertThat(k.priority()).isEqualTo(1000);
        assertThat(k.nominatedNodeName()).as("an empty nomination is none").isNull();
        assertThat(k.ready()).isTrue();
        assertThat(k.owners()).containsExactly(new KubePod.Owner("DaemonSet", "mps-blue"));
        assertThat(k.images()).containsExactly("busybox");
    }

    @Test
    void workload_controllerOwnerElseThePodItself() {
        Pod bare = Pods.pod("p").namespace("ml").build();
        assertThat(KubePod.of(bare).workload()).isEqualTo("ml/Pod/p");
        Pod job = Pods.pod("train-x7k2p").namespace("ml").build();
        job.getMetadata().setOwnerReferences(List.of(
                new OwnerReferenceBuilder().withKind("ConfigMap").withName("not-the-controller").build(),
                new OwnerReferenceBuilder().withKind("Job").withName("train").withController(true).build()));
        assertThat(KubePod.of(job).workload()).isEqualTo("ml/Job/train");
        Pod plainOwner = Pods.pod("q").namespace("ml").build();
        plainOwner.getMetadata().setOwnerReferences(List.of(new OwnerReferenceBuilder().withKind("Job").withName("j").build()));
        assertThat(KubePod.of(plainOwner).workload()).as("an owner that is not the controller").isEqualTo("ml/Pod/q");
    }

    /** The device plugin reads native sidecars (init containers with restartPolicy: Always) as the extender does. */
    @Test
    void facts_restartAlwaysInitContainer_isASidecar() {
        Pod pod = new PodBuilder().withNewMetadata().withName("p").withNamespace("ml").withUid("u").endMetadata().withNewSpec()
                .addToInitContainers(new ContainerBuilder().withName("proxy").withRestartPolicy(Names.RESTART_POLICY_ALWAYS)
                        .withNewResources().addToLimits(Names.RESOURCE_GPU_MEM, new Quantity("2")).endResources().build())
                .addToInitContainers(new ContainerBuilder().withName("setup")
                        .withNewResources().addToLimits(Names.RESOURCE_GPU_MEM, new Quantity("1")).endResources().build())
                .addToContainers(new ContainerBuilder().withName("main")
                        .withNewResources().addToLimits(Names.RESOURCE_GPU_MEM, new Quantity("4")).endResources().build())
                .endSpec().build();
        var expected = List.of(ContainerRequest.app("main", 4096, 0), ContainerRequest.sidecar("proxy", 2048, 0), ContainerRequest.init("setup", 1024, 0));
        assertThat(KubePod.of(pod).info(MemoryUnit.GIB).containers()).containsExactlyElementsOf(expected);
        assertThat(KubePod.of(pod).facts().toPodInfoLenient(MemoryUnit.GIB).containers()).containsExactlyElementsOf(expected);
    }

    @Test
    void facts_requestsWhenLimitsLackTheResource() {
        Pod pod = new PodBuilder().withNewMetadata().withName("p").endMetadata().withNewSpec()
                .addToContainers(new ContainerBuilder().withName("main")
                        .withNewResources().addToRequests(Names.RESOURCE_GPU_MEM, new Quantity("3")).endResources().build())
                .endSpec().build();
        assertThat(KubePod.of(pod).facts().containers().getFirst().memText()).isEqualTo("3");
    }

    @Test
    void info_badAmount_throwsSayingWhatToChange_whileTheBookingIsStillRead() {
        var alloc = AllocationCodec.encode(booked(), MemoryUnit.GIB);
        Pod p = Pods.pod("p").uid("u1").on("n1").gpuMem(7).annotations(alloc).annotation(Names.ANN_CONTEXT_RESERVE, "lots").build();
        KubePod k = KubePod.of(p);
        assertThatThrownBy(() -> k.info(MemoryUnit.GIB)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining(Names.ANN_CONTEXT_RESERVE);
        assertThat(k.booking(INV, MemoryUnit.GIB)).isInstanceOf(AllocationCodec.Decoded.Found.class);
    }

    @Test
    void booking_ackPodWithoutPodTotal_countsItsAppContainers() {
        Pod p = Pods.pod("p").uid("u1").on("n1").gpuMem(4).container("side", 2, 0)
                .annotation(Names.ACK_GPU_MEM_IDX, "1").build();
        var found = (AllocationCodec.Decoded.Found) KubePod.of(p).booking(INV, MemoryUnit.GIB);
        assertThat(found.allocation().demand().requestedMib()).isEqualTo(6 * 1024);
        assertThat(found.allocation().gpuUuids()).containsExactly("GPU-b");
    }

    @Test
    void booking_noAnnotation_none() {
        assertThat(KubePod.of(Pods.pod("p").on("n1").gpuMem(4).build()).booking(INV, MemoryUnit.GIB)).isInstanceOf(AllocationCodec.Decoded.None.class);
    }

    @ParameterizedTest(name = "gpu-mem {0}: asks {1}")
    @CsvSource({"7, true", "0, false", "1.5, false", "7Gi, false", "-2, false"})
    void asksGpuMem_onlyAWholeNumberAboveZero(String mem, boolean asks) {
        assertThat(KubePod.of(Pods.pod("p").gpuMem(mem).build()).asksGpuMem()).isEqualTo(asks);
    }

    private static Allocation booked() {
        return new Allocation(PodKey.of("default", "p"), "u1", "n1", List.of(0), List.of("GPU-a"), GpuDemand.simple(7 * 1024, 0, 1, 1024),
                Instant.parse("2026-12-01T12:00:00Z"), Phase.BOUND);
    }
}
