package io.mpshare.e2e.node;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.mpshare.core.Names;
import io.mpshare.testing.Waits;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Crossed twins: two pods with identical requests booked on different GPUs, admitted by kubelet in the other order
 * than they were booked, so each container gets the other's answer (Allocate carries only device IDs). kubelet
 * admits the pods of one batch oldest first (by creation time), so while kubelet is stopped the twin created first
 * is booked last (a scheduling gate holds it), and kubelet then learns both at once. Within 5 s of both running,
 * env, annotation and pod-resources must name the same GPU for each.
 */
@ExtendWith(NodeExtension.class)
class TwinsIT {
    private RealNode node;

    @Test void crossedTwins_envAnnotationAndPodResourcesAgreeWithinFiveSeconds(RealNode node) throws Exception {
        this.node = node;
        PodOps ops = new PodOps(node);
        ops.settleKubeletAllocations();
        node.stopKubelet();
        try {
            Pod older = new PodBuilder(TestPods.reporter("twin-older", 100, node.schedulerName(), node.outDir()))
                    .editSpec().addNewSchedulingGate("mpshare.io/e2e-hold").endSpec().build();
            Instant created = Instant.parse(ops.create(older).getMetadata().getCreationTimestamp());
            Waits.until(Duration.ofSeconds(3), () -> Instant.now().getEpochSecond() > created.getEpochSecond(), () -> "clock"); // creation times have 1 s steps
            ops.reporter("twin-younger", 100);
            Waits.until(Duration.ofSeconds(60), () -> ops.bound("twin-younger"), () -> ops.describe("twin-younger"));
            node.api().pods().inNamespace("default").withName("twin-older").edit(p -> new PodBuilder(p).editSpec().withSchedulingGates(List.of()).endSpec().build());
            Waits.until(Duration.ofSeconds(60), () -> ops.bound("twin-older"), () -> ops.describe("twin-older"));
        } catch (Exception | AssertionError e) {
            node.startKubelet();
            throw e;
        }
        // kubelet admits the pods it finds bound at start at once, before a plugin has registered again ("no healthy
        // devices present"); so it starts cut off from the API server until the plugin is back, then finds both twins
        // in one batch and admits them oldest first.
        KubeletLog log = new KubeletLog(node.kubelet().log());
        long mark = log.mark();
        node.cutKubeletFromApi(true);
        try {
            node.startKubelet();
            Waits.until(Duration.ofSeconds(60), () -> log.lastHealthy(Names.RESOURCE_GPU_MEM, mark).orElse(0) == RealNode.GPUS * RealNode.UNITS_PER_GPU,
                    () -> "plugin not registered with the new kubelet:\n" + RestartIT.tail(log.since(mark)));
        } finally {
            node.cutKubeletFromApi(false);
        }
        String youngerBooked = TestPods.bookedUuids(ops.get("twin-younger"));
        String olderBooked = TestPods.bookedUuids(ops.get("twin-older"));
        assertThat(youngerBooked).as("the twins were booked on different GPUs").isNotEqualTo(olderBooked);
        ops.awaitRunning("twin-older", Duration.ofSeconds(60));
        ops.awaitRunning("twin-younger", Duration.ofSeconds(60));
        String olderEnv = TestPods.report(node.outDir(), "twin-older").get(Names.ENV_VISIBLE_DEVICES);
        List<String> disagreement = new ArrayList<>();
        Duration agreed = Waits.until(Duration.ofSeconds(30), () -> agree(ops, disagreement), () -> "disagree: " + disagreement);
        System.out.printf("e2e/node: twins booked younger=%s older=%s; the older got %s (%s); env, annotation and pod-resources agreed %d ms after both ran%n",
                youngerBooked, olderBooked, olderEnv, olderEnv.equals(youngerBooked) ? "crossed" : "not crossed", agreed.toMillis());
        assertThat(olderEnv).as("kubelet admitted the older twin first, so it got the younger's answer (else nothing was crossed)").isEqualTo(youngerBooked);
        assertThat(agreed).isLessThanOrEqualTo(Duration.ofSeconds(5));
    }

    private boolean agree(PodOps ops, List<String> out) {
        out.clear();
        var recorded = ops.recordedGpus();
        for (String n : List.of("twin-older", "twin-younger")) {
            String booked = TestPods.bookedUuids(ops.get(n));
            String env;
            try {
                env = TestPods.report(node.outDir(), n).get(Names.ENV_VISIBLE_DEVICES);
            } catch (java.io.IOException e) {
                env = null;
            }
            if (!booked.equals(env) || !booked.equals(recorded.get(n))) out.add(n + ": annotation " + booked + ", env " + env + ", pod-resources " + recorded.get(n));
        }
        return out.isEmpty();
    }

    @AfterEach void cleanUp() throws InterruptedException {
        if (node != null) new PodOps(node).deleteAll();
    }
}
