package io.mpshare.e2e.k8s;

import io.fabric8.kubernetes.api.model.Pod;
import io.mpshare.e2e.k8s.junit.RealControlPlane;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A pod pending because no GPU has room binds soon after a GPU node joins. kube-scheduler retries the pod on the
 * Node's add event, which can reach it before the extender's node informer has the node (and its inventory); a
 * refusal then would park the pod until kube-scheduler's next flush (minutes). Here: one full node, a 100 GiB pod
 * refused, then a second node created as a node with the device plugin appears (inventory, then capacity).
 */
@ExtendWith(RealControlPlane.class)
class NodeArrivesIT {

    @Test
    void pendingPod_bindsWithinTenSecondsOfANewGpuNode(Cluster cluster) throws Exception {
        try (var s = new Scenario(cluster, "arrives", Map.of())) {
            s.nodes(1, 1);
            s.schedulerAndExtender();
            s.create(s.gpuPod("filler", 120));
            assertThat(Scenario.boundCount(s.awaitPods(l -> Scenario.allBound(l, 1), Duration.ofSeconds(60)))).as("filler bound").isEqualTo(1);
            s.create(s.gpuPod("waiter", 100));
            ReasonsIT.awaitEvent(s, "waiter", Duration.ofSeconds(60));

            long t0 = System.nanoTime();
            s.nodes(1, 1, 1);   // arrives-1
            List<Pod> after = s.awaitPods(l -> Scenario.allBound(l, 2), Duration.ofSeconds(60));
            double secs = (System.nanoTime() - t0) / 1e9;
            System.out.printf("NodeArrivesIT: waiter bound %.2f s after the node was created%n", secs);
            assertThat(Scenario.boundCount(after)).as("waiter bound").isEqualTo(2);
            assertThat(after).filteredOn(p -> p.getMetadata().getName().equals("waiter"))
                    .extracting(p -> p.getSpec().getNodeName()).containsExactly(s.name + "-1");
            assertThat(secs).as("seconds from node to bind").isLessThan(10);
            assertThat(s.overCommit(after)).isEmpty();
        }
    }
}
