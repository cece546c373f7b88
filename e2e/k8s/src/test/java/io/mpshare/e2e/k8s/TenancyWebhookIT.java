package io.mpshare.e2e.k8s;

import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.EphemeralContainerBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.mpshare.core.Names;
import io.mpshare.e2e.k8s.junit.RealControlPlane;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The chart's webhook entries against the real kube-apiserver: the namespace's {@code mpshare.io/tenancy} label picks
 * the entry (the webhook never reads namespaces), and {@code pods/ephemeralcontainers} updates reach it.
 */
@ExtendWith(RealControlPlane.class)
class TenancyWebhookIT {
    private static final String TRUSTED = "tenancy-trusted", STRICT = "tenancy-strict";

    /** The seed's sample pod: its image's user (root), hostIPC, hostPID, 7 GiB. */
    private static Pod seedSample(String ns) {
        return new PodBuilder().withNewMetadata().withName("mps-sample").withNamespace(ns).withLabels(Map.of("app", "mps-sample")).endMetadata()
                .withNewSpec().withHostIPC(true).withHostPID(true).withRestartPolicy("Never")
                .addToContainers(new ContainerBuilder().withName("mps-sample").withImage("registry.cn-hangzhou.aliyuncs.com/ai-samples/gpushare-sample:tensorflow-1.5")
                        .withCommand("python", "tensorflow-sample-code/tfjob/docker/mnist/main.py", "--max_steps=100000", "--data_dir=tensorflow-sample-code/data")
                        .withWorkingDir("/root").withNewResources().addToLimits(Names.RESOURCE_GPU_MEM, new Quantity("7")).endResources().build())
                .endSpec().build();
    }

    private static Pod nonRoot(String ns, String name) {
        return new PodBuilder().withNewMetadata().withName(name).withNamespace(ns).endMetadata()
                .withNewSpec().withNewSecurityContext().withRunAsUser(1000L).withRunAsNonRoot(true).endSecurityContext()
                .addToContainers(new ContainerBuilder().withName("main").withImage("busybox:1.36").withNewSecurityContext()
                        .withAllowPrivilegeEscalation(false).endSecurityContext()
                        .withNewResources().addToLimits(Names.RESOURCE_GPU_MEM, new Quantity("2")).endResources().build())
                .endSpec().build();
    }

    @Test
    void seedSample_trustedNamespaceAdmitted_strictRefusedWithTheLabel_ephemeralRootRefused(Cluster cluster) {
        var cp = cluster.controlPlane();
        var c = cluster.client();
        cp.createNamespace(TRUSTED, Map.of(Names.LABEL_TENANCY, Names.TENANCY_TRUSTED));
        cp.createNamespace(STRICT, Map.of());
        var logs = cluster.logs("TenancyWebhookIT");
        var trusted = cluster.webhooks().start("tenancy-trusted", TRUSTED, Names.SCHEDULER_NAME, logs);
        var strict = cluster.webhooks().start("tenancy-strict", STRICT, Names.SCHEDULER_NAME, logs);
        try {
            // trusted: the seed's sample unchanged, steered to mpshare's scheduler
            Pod created = c.resource(seedSample(TRUSTED)).create();
            assertThat(created.getSpec().getSchedulerName()).isEqualTo(Names.SCHEDULER_NAME);
            assertThat(created.getSpec().getSecurityContext() == null || created.getSpec().getSecurityContext().getRunAsUser() == null).isTrue();

            // strict: refused, the message says what to set and which label to add
            assertThatThrownBy(() -> c.resource(seedSample(STRICT)).create()).isInstanceOf(KubernetesClientException.class)
                    .hasMessageContaining("container mps-sample runs as root")
                    .hasMessageContaining("remove hostPID")
                    .hasMessageContaining("kubectl label namespace " + STRICT + " " + Names.LABEL_TENANCY + "=" + Names.TENANCY_TRUSTED);

            // strict: a non-root pod is admitted; a root debug container added to it later is refused, a restricted one is not
            c.resource(nonRoot(STRICT, "train")).create();
            var pod = c.pods().inNamespace(STRICT).withName("train");
            assertThatThrownBy(() -> pod.ephemeralContainers().edit(p -> {
                p.getSpec().getEphemeralContainers().add(new EphemeralContainerBuilder().withName("debugger-root").withImage("busybox:1.36")
                        .withNewSecurityContext().withRunAsUser(0L).endSecurityContext().build());
                return p;
            })).isInstanceOf(KubernetesClientException.class).hasMessageContaining("ephemeral container debugger-root runs as root");
            pod.ephemeralContainers().edit(p -> {
                p.getSpec().getEphemeralContainers().add(new EphemeralContainerBuilder().withName("debugger").withImage("busybox:1.36")
                        .withNewSecurityContext().withAllowPrivilegeEscalation(false).endSecurityContext().build());
                return p;
            });
            assertThat(pod.get().getSpec().getEphemeralContainers()).extracting(e -> e.getName()).containsExactly("debugger");

            // a pod that asks no shared GPU but asks the container runtime for every GPU through a CDI annotation
            Pod cdi = new PodBuilder().withNewMetadata().withName("cdi").withNamespace(STRICT)
                    .addToAnnotations(Names.CDI_ANNOTATION_PREFIX + "gpu", "nvidia.com/gpu=all").endMetadata()
                    .withNewSpec().addToContainers(new ContainerBuilder().withName("main").withImage("busybox:1.36").build()).endSpec().build();
            assertThatThrownBy(() -> c.resource(cdi).create()).isInstanceOf(KubernetesClientException.class)
                    .hasMessageContaining("annotation cdi.k8s.io/gpu");
        } finally {
            cluster.webhooks().stop(trusted);
            cluster.webhooks().stop(strict);
        }
    }
}
