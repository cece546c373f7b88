package io.mpshare.deviceplugin.allocation;

import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.mpshare.core.MemoryUnit;
import io.mpshare.core.Names;
import io.mpshare.core.model.ContainerRequest;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The device plugin reads native sidecars (init containers with restartPolicy: Always) as the extender does. */
class PodConversionSidecarTest {
    @Test
    void podInfo_restartAlwaysInitContainer_isASidecar() {
        Pod pod = new PodBuilder().withNewMetadata().withName("p").withNamespace("ml").withUid("u").endMetadata().withNewSpec()
                .addToInitContainers(new ContainerBuilder().withName("proxy").withRestartPolicy(Names.RESTART_POLICY_ALWAYS)
                        .withNewResources().addToLimits(Names.RESOURCE_GPU_MEM, new Quantity("2")).endResources().build())
                .addToInitContainers(new ContainerBuilder().withName("setup")
                        .withNewResources().addToLimits(Names.RESOURCE_GPU_MEM, new Quantity("1")).endResources().build())
                .addToContainers(new ContainerBuilder().withName("main")
                        .withNewResources().addToLimits(Names.RESOURCE_GPU_MEM, new Quantity("4")).endResources().build())
                .endSpec().build();
        assertThat(PodConversion.podInfo(pod, MemoryUnit.GIB).containers()).containsExactly(
                ContainerRequest.sidecar("proxy", 2048, 0), ContainerRequest.init("setup", 1024, 0), ContainerRequest.app("main", 4096, 0));
    }
}
