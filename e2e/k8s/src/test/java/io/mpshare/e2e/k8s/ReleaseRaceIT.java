package io.mpshare.e2e.k8s;

import io.fabric8.kubernetes.api.model.Pod;
import io.mpshare.e2e.k8s.junit.RealControlPlane;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.BiConsumer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A pod waiting for room on a full GPU binds within 5 s of the room's release, every time. One node of 2 x 16 GiB:
 * holder (15 GiB, 16 with the CUDA reserve) fills GPU 0, side (7 GiB) sits on GPU 1; waiter (10 GiB) fits the node's
 * total (32 units) so kube-scheduler sends it to the extender, which finds no GPU with 11 GiB free. Right after the
 * waiter's FailedScheduling, holder is deleted with grace 0: kube-scheduler retries the waiter on its own delete event,
 * which races the extender's informer. Each trial is a fresh set of pods; a trial where the extender saw the delete
 * late and nothing requeued the waiter afterwards shows up as a failure, not as luck. The same with the holder
 * finishing (phase Succeeded) instead of being deleted.
 */
@ExtendWith(RealControlPlane.class)
class ReleaseRaceIT {
    static final long GPU_MIB = 16_384;

    @ParameterizedTest(name = "policy {0}")
    @ValueSource(strings = {"fragmentation", "binpack", "spread"})
    void deletedHolder_waiterBoundWithinFiveSeconds_everyTrial(String policy, Cluster cluster) throws Exception {
        trials(cluster, "race-" + policy.substring(0, 4), List.of("--policy=" + policy), "deleted",
                (s, holder) -> s.c.pods().inNamespace(s.ns).withName(holder).withGracePeriod(0).delete());
    }

    /** The holder's containers end (phase Succeeded, as kubelet reports it) instead: the pod stays, its room is free. */
    @Test
    void finishedHolder_waiterBoundWithinFiveSeconds_everyTrial(Cluster cluster) throws Exception {
        trials(cluster, "finish", List.of(), "finished",
                (s, holder) -> s.c.pods().inNamespace(s.ns).withName(holder).editStatus(p -> { p.getStatus().setPhase("Succeeded"); return p; }));
    }

    private void trials(Cluster cluster, String name, List<String> extenderArgs, String how, BiConsumer<Scenario, String> release) throws Exception {
        try (var s = new Scenario(cluster, name, Map.of())) {
            String node = s.node("0", 2, GPU_MIB).getMetadata().getName();
            var ext = s.schedulerAndExtender(extenderArgs);
            List<String> failures = new ArrayList<>();
            List<Double> secs = new ArrayList<>();
            int trials = Trials.count();
            for (int t = 0; t < trials; t++) {
                s.create(s.gpuPod("holder-" + t, 15));
                assertThat(Trials.awaitBound(s, "holder-" + t, Duration.ofSeconds(30))).as("holder bound").isNotNull();
                s.create(s.gpuPod("side-" + t, 7));
                assertThat(Trials.awaitBound(s, "side-" + t, Duration.ofSeconds(30))).as("side bound").isNotNull();
                s.create(s.gpuPod("waiter-" + t, 10));
                assertThat(Trials.awaitRefusal(s, "waiter-" + t, Duration.ofSeconds(30))).as("waiter refused while holder runs").isNotNull();

                release.accept(s, "holder-" + t);
                long t0 = System.nanoTime();
                Pod w = Trials.awaitBound(s, "waiter-" + t, Duration.ofSeconds(15));
                double took = Trials.since(t0);
                if (w == null) failures.add("trial " + t + ": waiter still pending 15 s after the release");
                else {
                    secs.add(took);
                    if (took > 5.0) failures.add(String.format("trial %d: waiter bound %.2f s after the release", t, took));
                }
                assertThat(s.overCommit(s.pods().stream().filter(p -> !"Succeeded".equals(p.getStatus().getPhase())).toList())).isEmpty();
                Trials.clear(s, ext, node);
            }
            System.out.printf("ReleaseRaceIT %s (holder %s): %d of %d trials bound within 5 s; release -> bound %s%n", name, how,
                    trials - failures.size(), trials, Trials.summary(secs));
            assertThat(failures).as("trials that missed (of %d)", trials).isEmpty();
        }
    }
}
