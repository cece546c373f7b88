package io.mpshare.e2e.node;

import io.fabric8.kubernetes.api.model.Pod;
import io.mpshare.core.Names;
import io.mpshare.testing.Waits;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Restarts with pods running. kubelet: it deletes the plugin's sockets when it starts; the plugin must serve and
 * register again, and the running pods must survive. Device plugin: SIGTERM and start again (what a DaemonSet
 * rollout does to its process); the pods keep their GPUs and records, and new pods are admitted.
 */
@ExtendWith(NodeExtension.class)
class RestartIT {
    private RealNode node;

    @Test void kubeletRestart_podsSurvive_pluginRegistersAgain(RealNode node) throws Exception {
        this.node = node;
        PodOps ops = new PodOps(node);
        ops.settleKubeletAllocations();
        ops.reporter("before-kubelet", 5);
        ops.awaitRunning("before-kubelet", Duration.ofSeconds(60));
        String container = containerId(ops.get("before-kubelet"));
        KubeletLog log = new KubeletLog(node.kubelet().log());
        node.stopKubelet();
        long mark = log.mark();
        node.startKubelet();
        Duration registered = Waits.until(Duration.ofSeconds(30), () -> log.registrations(Names.RESOURCE_GPU_MEM, mark) > 0
                && log.lastHealthy(Names.RESOURCE_GPU_MEM, mark).orElse(0) == RealNode.GPUS * RealNode.UNITS_PER_GPU,
                () -> "plugin not registered again; kubelet log since restart:\n" + tail(log.since(mark)));
        System.out.printf("e2e/node: after kubelet restart the plugin registered again with all devices healthy %d ms after kubelet started%n", registered.toMillis());
        ops.reporter("after-kubelet", 5);
        ops.awaitRunning("after-kubelet", Duration.ofSeconds(60));
        Pod survivor = ops.get("before-kubelet");
        assertThat(survivor.getStatus().getPhase()).isEqualTo("Running");
        assertThat(containerId(survivor)).as("the same container, not a new one").isEqualTo(container);
        assertThat(survivor.getStatus().getContainerStatuses().getFirst().getRestartCount()).isZero();
        assertThat(ops.recordedGpus()).containsEntry("before-kubelet", TestPods.bookedUuids(survivor));
        assertThat(registered).isLessThanOrEqualTo(Duration.ofSeconds(10));
    }

    @Test void devicePluginRestart_podsKeepTheirGpus_newPodsAdmitted(RealNode node) throws Exception {
        this.node = node;
        PodOps ops = new PodOps(node);
        ops.awaitAllHealthy();
        ops.reporter("before-plugin-a", 100);
        ops.reporter("before-plugin-b", 100);
        ops.awaitRunning("before-plugin-a", Duration.ofSeconds(60));
        ops.awaitRunning("before-plugin-b", Duration.ofSeconds(60));
        String a = TestPods.bookedUuids(ops.get("before-plugin-a"));
        String b = TestPods.bookedUuids(ops.get("before-plugin-b"));
        KubeletLog log = new KubeletLog(node.kubelet().log());
        long mark = log.mark();
        node.restartDevicePlugin();
        Duration registered = Waits.until(Duration.ofSeconds(90), () -> log.registrations(Names.RESOURCE_GPU_MEM, mark) > 0
                && log.lastHealthy(Names.RESOURCE_GPU_MEM, mark).orElse(0) == RealNode.GPUS * RealNode.UNITS_PER_GPU,
                () -> "plugin not registered again:\n" + node.devicePlugin().tail(20));
        System.out.printf("e2e/node: device plugin restarted and registered again %d ms after SIGTERM%n", registered.toMillis());
        ops.reporter("after-plugin", 30);
        ops.awaitRunning("after-plugin", Duration.ofSeconds(60));
        var recorded = ops.recordedGpus();
        assertThat(ops.get("before-plugin-a").getStatus().getPhase()).isEqualTo("Running");
        assertThat(ops.get("before-plugin-b").getStatus().getPhase()).isEqualTo("Running");
        assertThat(TestPods.bookedUuids(ops.get("before-plugin-a"))).isEqualTo(a).isEqualTo(recorded.get("before-plugin-a"));
        assertThat(TestPods.bookedUuids(ops.get("before-plugin-b"))).isEqualTo(b).isEqualTo(recorded.get("before-plugin-b"));
        Pod after = ops.get("after-plugin");
        assertThat(TestPods.bookedUuids(after)).isEqualTo(recorded.get("after-plugin"))
                .isEqualTo(TestPods.report(node.outDir(), "after-plugin").get(Names.ENV_VISIBLE_DEVICES));
        assertThat(after.getMetadata().getAnnotations()).containsEntry(Names.ANN_ASSIGNED, "true");
    }

    static String containerId(Pod p) { return p.getStatus().getContainerStatuses().getFirst().getContainerID(); }

    static String tail(String s) {
        var lines = s.lines().toList();
        return String.join("\n", lines.subList(Math.max(0, lines.size() - 15), lines.size()));
    }

    @AfterEach void cleanUp() throws InterruptedException {
        if (node != null) new PodOps(node).deleteAll();
    }
}
