package io.mpshare.e2e.k8s;

import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.mpshare.e2e.k8s.junit.RealControlPlane;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * On nodes without a kubelet the real API server leaves a deleted pod {@code Terminating} (it waits for the kubelet);
 * {@link PodFinisher} ends it as kubelet would, on its own nodes only.
 */
@ExtendWith(RealControlPlane.class)
class PodFinisherIT {
    static final String NS = "finisher";

    private static Pod pod(KubernetesClient c, String name, String node) {
        return c.pods().inNamespace(NS).resource(new PodBuilder().withNewMetadata().withName(name).endMetadata()
                .withNewSpec().withNodeName(node).addNewContainer().withName("main").withImage("none").endContainer().endSpec().build()).create();
    }

    private static Pod await(KubernetesClient c, String name, Predicate<Pod> until) throws InterruptedException {
        long end = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (true) {
            Pod p = c.pods().inNamespace(NS).withName(name).get();
            if (until.test(p)) return p;
            if (System.nanoTime() > end) throw new AssertionError("pod " + name + " not as expected within 30 s: " + (p == null ? "gone" : p.getMetadata()));
            TimeUnit.MILLISECONDS.sleep(100);
        }
    }

    @Test
    void deletedPodOnAFakeNode_isGone_oneElsewhereStaysTerminating(Cluster cluster) throws Exception {
        KubernetesClient c = cluster.client();
        c.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(NS).endMetadata().build()).create();
        GpuNodes.create(c, GpuNodes.Spec.h200("finisher-n1", 1, Map.of()));
        GpuNodes.create(c, GpuNodes.Spec.h200("finisher-other", 1, Map.of()));
        pod(c, "ours", "finisher-n1");
        pod(c, "theirs", "finisher-other");
        try (PodFinisher finisher = PodFinisher.start(c, Set.of("finisher-n1"))) {
            c.pods().inNamespace(NS).withName("theirs").delete();
            c.pods().inNamespace(NS).withName("ours").delete();
            await(c, "ours", p -> p == null);
            Pod theirs = await(c, "theirs", p -> p != null && p.getMetadata().getDeletionTimestamp() != null);
            assertThat(theirs.getMetadata().getDeletionTimestamp()).as("no kubelet, not ours: still Terminating").isNotNull();
        } finally {
            c.pods().inNamespace(NS).withName("theirs").withGracePeriod(0).delete();
        }
    }
}
