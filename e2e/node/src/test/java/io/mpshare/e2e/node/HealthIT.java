package io.mpshare.e2e.node;

import io.fabric8.kubernetes.api.model.Pod;
import io.mpshare.core.Names;
import io.mpshare.deviceplugin.health.SupervisorSocketProbe;
import io.mpshare.testing.Waits;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The MPS daemon's health as kubelet sees it (its own log of each ListAndWatch update): without a daemon a CUDA
 * process runs with no cap at all (FACTS.md), so kubelet must stop admitting shared-GPU pods at once, and pods
 * refused meanwhile must be placed soon after the daemon is back.
 */
@ExtendWith(NodeExtension.class)
class HealthIT {
    static final int ALL = RealNode.GPUS * RealNode.UNITS_PER_GPU;

    private RealNode node;

    @Test void daemonKilled_unhealthyWithinTwoSeconds_refusedPodsBoundWithinTenSecondsOfRecovery(RealNode node) throws Exception {
        this.node = node;
        PodOps ops = new PodOps(node);
        KubeletLog log = new KubeletLog(node.kubelet().log());
        awaitHealthy(log, 0); // the last update kubelet logged says all Healthy
        node.breakDaemonStarts(true); // the supervisor's restarts fail until we say: the outage stays open
        long mark = log.mark();
        node.killDaemon();
        Duration unhealthy = Waits.until(Duration.ofSeconds(10), () -> log.lastHealthy(Names.RESOURCE_GPU_MEM, mark).orElse(-1) == 0,
                () -> "kubelet saw no Unhealthy devices; plugin:\n" + node.devicePlugin().tail(10));
        // a pod the extender places before the plugin's inventory patch reaches it is bound and then refused by kubelet
        // ("no healthy devices present"): seen; this scenario is about pods the extender refuses, so it waits for the patch
        Waits.until(Duration.ofSeconds(10), () -> "0".equals(node.api().nodes().withName(RealNode.NAME).get().getMetadata().getLabels()
                .get(Names.NODE_LABEL_HEALTHY_GPUS)), () -> "the Node still says GPUs are healthy");
        ops.reporter("during-outage", 5);
        Waits.until(Duration.ofSeconds(30), () -> refused(ops.get("during-outage")), () -> ops.describe("during-outage"));
        // the outage lasts until kubelet's node status update (every 10 s) has put it into allocatable, the case where
        // kube-scheduler's own view of the node says "no room" too; a shorter outage may or may not reach it
        Waits.until(Duration.ofSeconds(30), () -> node.allocatable(Names.RESOURCE_GPU_MEM) == 0,
                () -> "allocatable " + node.allocatable(Names.RESOURCE_GPU_MEM));
        long back = log.mark();
        node.breakDaemonStarts(false);
        Duration healthyAgain = Waits.until(Duration.ofSeconds(90), () -> log.lastHealthy(Names.RESOURCE_GPU_MEM, back).orElse(-1) == ALL,
                () -> "devices not Healthy again; mps-control:\n" + node.mpsControl().tail(10));
        Duration bound = Waits.until(Duration.ofSeconds(60), () -> ops.bound("during-outage"), () -> ops.describe("during-outage"));
        System.out.printf("e2e/node: daemon kill -9 -> kubelet saw healthyCount 0 after %d ms; daemon allowed back -> Healthy after %d ms;"
                + " the pod refused meanwhile bound %d ms after that%n", unhealthy.toMillis(), healthyAgain.toMillis(), bound.toMillis());
        ops.awaitRunning("during-outage", Duration.ofSeconds(60));
        assertThat(unhealthy).isLessThanOrEqualTo(Duration.ofSeconds(2));
        // kube-scheduler's own view gets the devices back with kubelet's next node status update (every 10 s), then it
        // schedules the pod: up to 10 s plus that cycle (10.05 s seen); a wake-up that never came would take longer
        assertThat(bound).isLessThanOrEqualTo(Duration.ofSeconds(15));
    }

    /** A hung supervisor whose daemon still runs is given the probe's grace (a slow one must not fail kubelet's pods). */
    @Test void supervisorHung_unhealthyWithinTheGracePlusTwoSeconds(RealNode node) throws Exception {
        this.node = node;
        KubeletLog log = new KubeletLog(node.kubelet().log());
        long mark = log.mark();
        node.hangSupervisor(true);
        try {
            Duration unhealthy = Waits.until(Duration.ofSeconds(30), () -> log.lastHealthy(Names.RESOURCE_GPU_MEM, mark).orElse(-1) == 0,
                    () -> "kubelet saw no Unhealthy devices while the supervisor was stopped; plugin:\n" + node.devicePlugin().tail(10));
            System.out.printf("e2e/node: supervisor SIGSTOP -> kubelet saw healthyCount 0 after %d ms%n", unhealthy.toMillis());
            assertThat(unhealthy).isLessThanOrEqualTo(SupervisorSocketProbe.DEFAULT_UNANSWERED_GRACE.plus(Duration.ofSeconds(2)));
        } finally {
            long back = log.mark();
            node.hangSupervisor(false);
            awaitHealthy(log, back);
        }
    }

    /** The extender refused it: PodScheduled=False, Unschedulable. */
    static boolean refused(Pod p) {
        return p != null && p.getSpec().getNodeName() == null && p.getStatus().getConditions().stream()
                .anyMatch(c -> "PodScheduled".equals(c.getType()) && "False".equals(c.getStatus()));
    }

    private void awaitHealthy(KubeletLog log, long from) throws InterruptedException {
        Waits.until(Duration.ofSeconds(90), () -> log.lastHealthy(Names.RESOURCE_GPU_MEM, from).orElse(-1) == ALL,
                () -> "devices not all Healthy; plugin:\n" + node.devicePlugin().tail(10));
    }

    @AfterEach void cleanUp() throws Exception {
        if (node == null) return;
        node.breakDaemonStarts(false);
        new PodOps(node).deleteAll();
    }
}
