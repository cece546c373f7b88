package io.mpshare.e2e.k8s;

import tools.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.scheduling.v1.PriorityClassBuilder;
import io.fabric8.kubernetes.client.Watch;
import io.mpshare.e2e.k8s.junit.RealControlPlane;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Preemption gives the freed GPU to the preemptor, not to a lower-priority pod that was waiting for the same node.
 * One node of 2 x 16 GiB: GPU 0 holds two 7 GiB pods (8 GiB each with the CUDA reserve), GPU 1 four 3 GiB pods, all of
 * priority 0; waiter (7 GiB, priority 0) is pending (the node's total has 6 of 32 units left). Then preemptor (10 GiB,
 * priority 1000) arrives: the extender's preempt verb names the two pods of GPU 0, kube-scheduler evicts them and
 * nominates preemptor to the node, and waiter, retried on the same deletions, must not take the room they leave.
 * The 7 GiB pods are placed while GPU 1 is published unhealthy, so every policy puts them on GPU 0. There is no
 * kubelet: pods given a deletion timestamp are removed by the test, as kubelet would once their containers stopped.
 */
@ExtendWith(RealControlPlane.class)
class PreemptionWaiterIT {
    static final long GPU_MIB = 16_384;
    static final String HIGH = "waiter-test-high";

    @ParameterizedTest(name = "policy {0}")
    @ValueSource(strings = {"fragmentation", "binpack", "spread"})
    void preemptorBindsOnTheFreedGpu_lowerPriorityWaiterStaysPending_everyTrial(String policy, Cluster cluster) throws Exception {
        try (var s = new Scenario(cluster, "pw-" + policy.substring(0, 4), Map.of())) {
            s.c.resource(new PriorityClassBuilder().withNewMetadata().withName(HIGH).endMetadata().withValue(1000).build()).serverSideApply();
            String node = s.node("0", 2, GPU_MIB).getMetadata().getName();
            var ext = s.schedulerAndExtender(List.of("--policy=" + policy));
            Map<String, Instant> deleting = new ConcurrentHashMap<>();
            List<String> failures = new ArrayList<>();
            List<Double> secs = new ArrayList<>();
            int trials = Trials.count();
            try (Watch kubelet = Trials.finaliseDeletions(s.c, s.ns, deleting)) {
                for (int t = 0; t < trials; t++) {
                    deleting.clear();
                    Trials.setHealth(s.c, node, 1, false);
                    Trials.awaitLedger(ext, node, g -> !g.get(1).get("healthy").asBoolean(), Duration.ofSeconds(30));
                    for (String p : List.of("a-" + t, "b-" + t)) {
                        s.create(s.gpuPod(p, 7));
                        assertThat(Trials.awaitBound(s, p, Duration.ofSeconds(30))).as(p + " bound").isNotNull();
                    }
                    Trials.setHealth(s.c, node, 1, true);
                    Trials.awaitLedger(ext, node, g -> g.get(1).get("healthy").asBoolean(), Duration.ofSeconds(30));
                    for (int i = 0; i < 4; i++) {
                        s.create(s.gpuPod("c" + i + "-" + t, 3));
                        assertThat(Trials.awaitBound(s, "c" + i + "-" + t, Duration.ofSeconds(30))).as("c" + i + " bound").isNotNull();
                    }
                    JsonNode gpus = Trials.awaitLedger(ext, node, g -> Trials.podsOn(g) == 6, Duration.ofSeconds(30));
                    assertThat(gpus.get(0).get("pods").size()).as("two 7 GiB pods on GPU 0").isEqualTo(2);
                    s.create(s.gpuPod("waiter-" + t, 7));
                    assertThat(Trials.awaitRefusal(s, "waiter-" + t, Duration.ofSeconds(30))).as("waiter pending").isNotNull();

                    Pod pre = s.gpuPod("preemptor-" + t, 10);
                    pre.getSpec().setPriorityClassName(HIGH);
                    long t0 = System.nanoTime();
                    s.create(pre);
                    Pod bound = Trials.awaitBound(s, "preemptor-" + t, Duration.ofSeconds(30));
                    double took = Trials.since(t0);
                    Pod waiter = s.c.pods().inNamespace(s.ns).withName("waiter-" + t).get();
                    if (bound == null) failures.add("trial " + t + ": preemptor still pending 30 s after it was created; waiter "
                            + (waiter.getSpec().getNodeName() == null ? "pending" : "bound") + "; evicted " + evicted(deleting, t));
                    else if (waiter.getSpec().getNodeName() != null) failures.add("trial " + t + ": waiter bound too, beside the preemptor");
                    else if (!evicted(deleting, t).equals(Set.of("a-" + t, "b-" + t))) failures.add("trial " + t + ": evicted " + evicted(deleting, t));
                    else secs.add(took);
                    assertThat(s.overCommit(s.pods())).isEmpty();
                    Trials.clear(s, ext, node);
                }
            }
            System.out.printf("PreemptionWaiterIT %s: %d of %d trials right; preemptor created -> bound %s%n", policy,
                    trials - failures.size(), trials, Trials.summary(secs));
            assertThat(failures).as("trials that went wrong (of %d)", trials).isEmpty();
        }
    }

    /** The pods of trial {@code t} given a deletion timestamp (the watch may still report the last trial's clean-up). */
    static Set<String> evicted(Map<String, Instant> deleting, int t) {
        Set<String> out = new TreeSet<>();
        for (String name : deleting.keySet()) if (name.endsWith("-" + t)) out.add(name);
        return out;
    }
}
