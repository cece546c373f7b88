package io.mpshare.scheduler.http;

import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.mpshare.core.MemoryUnit;
import io.mpshare.core.Names;
import io.mpshare.core.model.DemandResolver;
import io.mpshare.core.model.GpuDemand;
import io.mpshare.kube.KubePod;
import io.mpshare.kube.PodFacts;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Native sidecars, the per-pod context reserve and the gpu-count split, read the two ways the extender reads a pod
 * (kube-scheduler's JSON through {@link WireReader}, the informer's objects through {@link KubePod}): both must
 * give the same demand.
 */
class PodShapesWireTest {
    private final DemandResolver resolver = new DemandResolver(1024, MemoryUnit.GIB);

    private static Pod pod(Map<String, String> labels, Map<String, String> annotations, String sidecarPolicy, int sidecarGib, int mainGib) {
        return new PodBuilder().withNewMetadata().withName("p").withNamespace("ml").withLabels(labels).withAnnotations(annotations).endMetadata()
                .withNewSpec()
                .addToInitContainers(new ContainerBuilder().withName("proxy").withRestartPolicy(sidecarPolicy)
                        .withNewResources().addToLimits(Names.RESOURCE_GPU_MEM, new Quantity(Integer.toString(sidecarGib))).endResources().build())
                .addToContainers(new ContainerBuilder().withName("main")
                        .withNewResources().addToLimits(Names.RESOURCE_GPU_MEM, new Quantity(Integer.toString(mainGib))).endResources().build())
                .endSpec().build();
    }

    private PodFacts wire(Pod pod) throws Exception {
        String body = "{\"Pod\":" + Serialization.asJson(pod) + ",\"NodeNames\":[\"n1\"]}";
        return new WireReader().extenderArgs(new ByteArrayInputStream(body.getBytes(StandardCharsets.UTF_8))).pod();
    }

    private GpuDemand demand(PodFacts facts) {
        return ((DemandResolver.Resolution.Resolved) resolver.resolve(facts.toPodInfo(MemoryUnit.GIB))).demand();
    }

    @Test
    void readPod_nativeSidecar_countedBesideTheAppOnBothPaths() throws Exception {
        Pod p = pod(Map.of(), Map.of(), Names.RESTART_POLICY_ALWAYS, 2, 4);
        for (PodFacts f : new PodFacts[]{wire(p), KubePod.of(p).facts()}) {
            assertThat(demand(f).chargeMib()).isEqualTo(2 * 1024 + 1024 + 4 * 1024 + 1024);
            assertThat(demand(f).requestedMib()).isEqualTo(6 * 1024);
        }
    }

    @Test
    void readPod_plainInitContainer_notCountedBesideTheApp() throws Exception {
        Pod p = pod(Map.of(), Map.of(), null, 2, 4);
        assertThat(demand(wire(p)).chargeMib()).isEqualTo(4 * 1024 + 1024);
        assertThat(demand(KubePod.of(p).facts()).chargeMib()).isEqualTo(4 * 1024 + 1024);
    }

    @Test
    void readPod_contextReserveAnnotation_bookedOnBothPaths() throws Exception {
        Pod p = pod(Map.of(), Map.of(Names.ANN_CONTEXT_RESERVE, "1536"), null, 2, 4);
        for (PodFacts f : new PodFacts[]{wire(p), KubePod.of(p).facts()}) {
            assertThat(demand(f).reserveMib()).isEqualTo(1536);
            assertThat(demand(f).chargeMib()).isEqualTo(4 * 1024 + 1536);
        }
    }

    @Test
    void resolve_gpuCount2With15Gib_refusedInTheRequestsUnit() throws Exception {
        Pod p = pod(Map.of(Names.LABEL_GPU_COUNT, "2"), Map.of(), null, 2, 15);
        var r = resolver.resolve(wire(p).toPodInfo(MemoryUnit.GIB));
        assertThat(r).isInstanceOf(DemandResolver.Resolution.Invalid.class);
        assertThat(((DemandResolver.Resolution.Invalid) r).reason()).contains("15 GiB", "over 2 GPUs in whole GiB", "such as 14 or 16");
    }
}
