package io.mpshare.e2e.k8s;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.Pod;
import io.mpshare.e2e.k8s.junit.RealControlPlane;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The extender sees every node kube-scheduler finds feasible, on a cluster large enough that kube-scheduler's own
 * default would stop early. On 100+ nodes kube-scheduler stops looking once it has found a share of them
 * ({@code percentageOfNodesToScore}, adaptive: 49% of 200 nodes, at least 100) and hands only those to the extender,
 * starting each pod where the last one stopped. Here 200 nodes of 2 H200 each hold an 80 GiB filler per GPU (so every
 * node's total admits a 100 GiB pod, but no GPU does) except one, which is empty. With the window, one of two 100 GiB
 * pods scheduled in turn misses the empty node and is refused for that cycle; with the chart's
 * {@code percentageOfNodesToScore: 100} both land there at the first try.
 */
@ExtendWith(RealControlPlane.class)
class WholeClusterIT {
    static final int NODES = 200;
    static final int EMPTY = 137;

    @Test
    void everyFeasibleNodeReachesTheExtender_podsFindTheOneEmptyNodeFirstTime(Cluster cluster) throws Exception {
        try (var s = new Scenario(cluster, "whole", Map.of())) {
            s.nodes(NODES, 2);
            s.schedulerAndExtender();
            List<Pod> fillers = new ArrayList<>();
            for (int i = 0; i < NODES; i++) {
                if (i == EMPTY) continue;
                for (int g = 0; g < 2; g++) fillers.add(s.gpuPodOn("filler-" + i + "-" + g, 80, i));
            }
            s.createAll(fillers, 8);
            assertThat(Scenario.boundCount(s.awaitPods(l -> Scenario.allBound(l, fillers.size()), Duration.ofSeconds(240))))
                    .as("fillers bound").isEqualTo(fillers.size());
            assertThat(s.events("FailedScheduling")).as("fillers").isEmpty();

            String empty = s.name + "-" + EMPTY;
            for (int k = 0; k < 2; k++) {
                s.create(s.gpuPod("big-" + k, 100));
                int want = fillers.size() + k + 1;
                List<Pod> now = s.awaitPods(l -> Scenario.allBound(l, want), Duration.ofSeconds(60));
                assertThat(Scenario.boundCount(now)).as("big-%d bound", k).isEqualTo(want);
            }
            List<Pod> all = s.pods();
            assertThat(all).filteredOn(p -> p.getMetadata().getName().startsWith("big-"))
                    .extracting(p -> p.getSpec().getNodeName()).containsExactly(empty, empty);
            List<String> refused = s.events("FailedScheduling").stream().map(Event::getMessage).toList();
            assertThat(refused).as("a pod refused for a cycle: kube-scheduler stopped before the empty node").isEmpty();
            assertThat(s.overCommit(all)).isEmpty();
        }
    }
}
