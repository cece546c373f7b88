package io.mpshare.e2e.k8s;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.mpshare.core.Names;
import io.mpshare.e2e.k8s.junit.RealControlPlane;
import io.mpshare.testing.Pods;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The harness itself: identities and RBAC are real, and one GPU pod goes through the chart's scheduler and the extender jar. */
@ExtendWith(RealControlPlane.class)
class HarnessIT {

    @Test
    void nodeIdentity_isLimitedByTheNodeAuthorizer(Cluster cluster) {
        GpuNodes.create(cluster.client(), GpuNodes.Spec.h200("harness-n1", 1, Map.of()));
        try (KubernetesClient node = ControlPlane.clientFor(cluster.controlPlane().kubeconfigFor("system:node:harness-n1", List.of("system:nodes")))) {
            assertThat(node.nodes().withName("harness-n1").get()).isNotNull();
            assertThatThrownBy(() -> node.secrets().inNamespace("kube-system").list())
                    .isInstanceOf(KubernetesClientException.class).hasMessageContaining("Forbidden");
        }
    }

    @Test
    void chartAccount_hasTheChartsRightsOnly(Cluster cluster) {
        try (KubernetesClient sa = ControlPlane.clientFor(cluster.components().schedulerAccountKubeconfig())) {
            assertThat(sa.pods().inAnyNamespace().list().getItems()).isNotNull();
            assertThatThrownBy(() -> sa.secrets().inNamespace("kube-system").list())
                    .isInstanceOf(KubernetesClientException.class).hasMessageContaining("Forbidden");
        }
    }

    @Test
    void gpuPod_boundByChartSchedulerAndExtender(Cluster cluster) {
        var c = cluster.client();
        cluster.controlPlane().createNamespace("harness", Map.of());
        GpuNodes.create(c, GpuNodes.Spec.h200("harness-gpu", 2, Map.of("e2e.mpshare.io/group", "harness")));
        var logs = cluster.logs("HarnessIT");
        var ext = cluster.components().extender("harness-extender", List.of("--scheduler-name=harness-sched"), logs); // bind accepts this profile
        var sched = cluster.components().scheduler("harness-scheduler", Components.SchedulerSettings.single("harness-sched", ext.port()), logs);
        Pod p = Pods.pod("p1").namespace("harness").gpuMem(7).build();
        p.getSpec().setSchedulerName(sched.schedulerName());
        p.getSpec().setNodeSelector(Map.of("e2e.mpshare.io/group", "harness"));
        c.resource(p).create();
        Pod bound = c.pods().inNamespace("harness").withName("p1").waitUntilCondition(
                x -> x.getSpec().getNodeName() != null, 60, java.util.concurrent.TimeUnit.SECONDS);
        assertThat(bound.getSpec().getNodeName()).isEqualTo("harness-gpu");
        assertThat(bound.getMetadata().getAnnotations()).containsKey(Names.ANN_ALLOCATION);
        cluster.controlPlane().stop(sched.process());
        cluster.controlPlane().stop(ext.process());
        assertThat(Duration.ZERO).isNotNull();
    }
}
