package io.mpshare.e2e.k8s;

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
 * A pod waiting for a GPU binds within 5 s of the GPU turning healthy again, every time. One node of 2 x 16 GiB with
 * GPU 1 published unhealthy; holder (15 GiB) fills GPU 0; waiter (10 GiB) is refused. Then GPU 1 is published healthy
 * as the device plugin does (inventory annotation and the healthy-GPU label in one patch): kube-scheduler retries the
 * waiter on the label's node event, which races the extender's node informer. A retry that reached the extender before
 * its informer had the new inventory is refused again, and no further event comes; the extender's requeue of refused
 * pods must wake it. Each trial is a fresh set of pods.
 */
@ExtendWith(RealControlPlane.class)
class HealthRaceIT {
    @Test void gpuBackToHealthy_waiterBoundWithinFiveSeconds_everyTrial(Cluster cluster) throws Exception {
        try (var s = new Scenario(cluster, "health", Map.of())) {
            String node = s.node("0", 2, 16_384).getMetadata().getName();
            var ext = s.schedulerAndExtender();
            List<String> failures = new ArrayList<>();
            List<Double> secs = new ArrayList<>();
            int trials = Trials.count();
            for (int t = 0; t < trials; t++) {
                Trials.setHealth(s.c, node, 1, false);
                Trials.awaitLedger(ext, node, g -> !g.get(1).get("healthy").asBoolean(), Duration.ofSeconds(30));
                s.create(s.gpuPod("holder-" + t, 15));
                assertThat(Trials.awaitBound(s, "holder-" + t, Duration.ofSeconds(30))).as("holder bound").isNotNull();
                s.create(s.gpuPod("waiter-" + t, 10));
                assertThat(Trials.awaitRefusal(s, "waiter-" + t, Duration.ofSeconds(30))).as("waiter refused while GPU 1 is down").isNotNull();

                Trials.setHealth(s.c, node, 1, true);
                long t0 = System.nanoTime();
                Pod w = Trials.awaitBound(s, "waiter-" + t, Duration.ofSeconds(15));
                double took = Trials.since(t0);
                if (w == null) failures.add("trial " + t + ": waiter still pending 15 s after GPU 1 turned healthy");
                else {
                    secs.add(took);
                    if (took > 5.0) failures.add(String.format("trial %d: waiter bound %.2f s after GPU 1 turned healthy", t, took));
                }
                Trials.clear(s, ext, node);
            }
            System.out.printf("HealthRaceIT: %d of %d trials bound within 5 s; healthy -> bound %s%n", trials - failures.size(), trials,
                    Trials.summary(secs));
            assertThat(failures).as("trials that missed (of %d)", trials).isEmpty();
        }
    }
}
