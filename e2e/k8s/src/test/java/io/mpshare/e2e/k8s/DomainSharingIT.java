package io.mpshare.e2e.k8s;

import io.fabric8.kubernetes.api.model.Pod;
import io.mpshare.core.Names;
import io.mpshare.e2e.k8s.junit.RealControlPlane;
import io.mpshare.testing.Pods;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Fault domains in placement, through the real kube-scheduler and the extender as the chart runs it (its ServiceAccount
 * reads namespaces; {@code --fault-domain-default=tenant}). One node of one H200:
 * - two namespaces of the cluster default ({@code tenant}: a daemon per namespace and client UID on the GPU), pods of
 *   UIDs 1000 and 2000: both bound to the one GPU (one daemon per UID could not serve them together);
 * - two namespaces labelled {@code mpshare.io/fault-domain=node} (the node's one daemon, which serves one UID at a
 *   time): the pod of UID 1000 bound, the pod of UID 2000 refused for the UID, though the GPU has room.
 */
@ExtendWith(RealControlPlane.class)
class DomainSharingIT {

    @Test
    void tenantNamespaces_differentUids_shareTheOneGpu(Cluster cluster) throws Exception {
        try (var s = new Scenario(cluster, "tenants", Map.of()); var other = new OtherNamespace(cluster, "tenants-b", Map.of())) {
            s.nodes(1, 1);
            s.schedulerAndExtender();
            s.create(s.pod("a", b -> b.gpuMem(10).runAsUser(1000)));
            s.create(other.pod(s, "b", 2000));
            List<Pod> mine = s.awaitPods(l -> Scenario.allBound(l, 1), Duration.ofSeconds(60));
            Pod b = other.awaitBound("b", Duration.ofSeconds(60));
            assertThat(Scenario.boundCount(mine)).as("tenant a's pod bound").isEqualTo(1);
            assertThat(b.getSpec().getNodeName()).as("tenant b's pod bound beside it").isEqualTo(mine.getFirst().getSpec().getNodeName());
            assertThat(Scenario.fields(b.getMetadata().getAnnotations().get(Names.ANN_ALLOCATION)).get("gpus"))
                    .isEqualTo(Scenario.fields(mine.getFirst().getMetadata().getAnnotations().get(Names.ANN_ALLOCATION)).get("gpus"));
            assertThat(s.overCommit(List.of(mine.getFirst(), b))).isEmpty();
        }
    }

    @Test
    void nodeKindNamespaces_keepTheOneUidRule(Cluster cluster) throws Exception {
        Map<String, String> nodeKind = Map.of(Names.LABEL_FAULT_DOMAIN, "node");
        try (var s = new Scenario(cluster, "trusted", nodeKind); var other = new OtherNamespace(cluster, "trusted-b", nodeKind)) {
            s.nodes(1, 1);
            s.schedulerAndExtender();
            s.create(other.pod(s, "first", 1000));
            other.awaitBound("first", Duration.ofSeconds(60));
            // the pod's own label cannot ask for a domain of its own: only the namespace's counts
            s.create(s.pod("second", b -> b.gpuMem(10).runAsUser(2000).label(Names.LABEL_FAULT_DOMAIN, "tenant")));
            String msg = ReasonsIT.awaitEvent(s, "second", Duration.ofSeconds(60)).getMessage();
            assertThat(msg).contains("serves another UID", "pod runs as UID 2000");
            assertThat(s.pods()).singleElement().satisfies(p -> assertThat(p.getSpec().getNodeName()).isNull());
        }
    }

    /** A second namespace beside a scenario's, with pods of the scenario's profile kept to its nodes; deleted at close. */
    private record OtherNamespace(Cluster cluster, String ns) implements AutoCloseable {
        OtherNamespace(Cluster cluster, String ns, Map<String, String> labels) {
            this(cluster, ns);
            cluster.controlPlane().createNamespace(ns, labels);
        }

        Pod pod(Scenario s, String name, long uid) {
            Pod p = Pods.pod(name).namespace(ns).gpuMem(10).runAsUser(uid).build();
            p.getSpec().setSchedulerName(s.schedulerName);
            p.getSpec().setNodeSelector(Map.of(Scenario.GROUP, s.name));
            return p;
        }

        Pod awaitBound(String name, Duration timeout) {
            long end = System.nanoTime() + timeout.toNanos();
            while (true) {
                Pod p = cluster.client().pods().inNamespace(ns).withName(name).get();
                if (p != null && p.getSpec().getNodeName() != null) return p;
                if (System.nanoTime() > end) throw new AssertionError("pod " + ns + "/" + name + " not bound within " + timeout.toSeconds() + " s");
                ControlPlane.sleep(200);
            }
        }

        @Override public void close() {
            cluster.client().pods().inNamespace(ns).withGracePeriod(0).delete();
            cluster.client().namespaces().withName(ns).delete();
        }
    }
}
