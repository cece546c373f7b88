package io.mpshare.e2e.node;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.mpshare.testing.Waits;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A pod that asks gpu-mem with {@code spec.nodeName} preset never meets the extender: kubelet admits it directly and
 * the plugin's Allocate must refuse it at once, with a message a person can act on, while a pod placed the right way
 * at the same moment starts normally (kubelet admits pods one at a time on its sync loop).
 */
@ExtendWith(NodeExtension.class)
class PresetNodeNameIT {
    private RealNode node;

    @Test void presetNodeName_failsFastWithReadableMessage_andStallsNoOtherPod(RealNode node) throws Exception {
        this.node = node;
        PodOps ops = new PodOps(node);
        ops.awaitAllHealthy();
        Pod preset = new PodBuilder(TestPods.reporter("preset", 7, node.schedulerName(), node.outDir()))
                .editSpec().withNodeName(RealNode.NAME).withSchedulerName(null).endSpec().build();
        long start = System.nanoTime();
        ops.create(preset);
        ops.reporter("placed", 7);
        Duration failed = Waits.until(Duration.ofSeconds(30), () -> "Failed".equals(ops.get("preset").getStatus().getPhase()), () -> ops.describe("preset"));
        ops.awaitRunning("placed", Duration.ofSeconds(30));
        double placedSeconds = (System.nanoTime() - start) / 1e9;
        Pod p = ops.get("preset");
        System.out.printf("e2e/node: preset nodeName pod Failed %d ms after create (%s: %s); the placed pod Running %.2f s after create%n",
                failed.toMillis(), p.getStatus().getReason(), p.getStatus().getMessage(), placedSeconds);
        assertThat(p.getStatus().getReason()).isEqualTo("UnexpectedAdmissionError");
        assertThat(p.getStatus().getMessage()).contains("default/preset").contains("spec.nodeName");
        assertThat(p.getStatus().getMessage()).as("one sentence end, not ')., which is unexpected'").doesNotContain("., which");
        assertThat(failed).as("refused at once").isLessThanOrEqualTo(Duration.ofSeconds(5));
        // kube-scheduler's own NodeResourcesFit counts the preset pod's gpu-mem until kubelet fails it, so the placed pod
        // may be refused once or twice first and then wait out kube-scheduler's backoff (seen: Running 10.2 s after
        // create, bound 7 s after the refusal); a refusal that held kubelet or the plugin would hold it far longer
        assertThat(placedSeconds).as("the placed pod was not held up by the refusal").isLessThanOrEqualTo(20.0);
    }

    @AfterEach void cleanUp() throws InterruptedException {
        if (node != null) new PodOps(node).deleteAll();
    }
}
