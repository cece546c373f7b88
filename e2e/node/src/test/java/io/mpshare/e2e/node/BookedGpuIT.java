package io.mpshare.e2e.node;

import io.fabric8.kubernetes.api.model.Pod;
import io.mpshare.core.Names;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * kubelet records (checkpoint, pod-resources) the device IDs it chose from the plugin's GetPreferredAllocation,
 * which it calls ~25 ms after the bind: for 50 pods in a row those IDs must be on the GPU the extender booked, and
 * the env the container got must name the same GPU.
 */
@ExtendWith(NodeExtension.class)
class BookedGpuIT {
    static final int PODS = 50;

    private RealNode node;

    @Test void fiftyPodsInARow_kubeletRecordsDevicesOfTheBookedGpu(RealNode node) throws Exception {
        this.node = node;
        PodOps ops = new PodOps(node);
        long start = System.nanoTime();
        for (int i = 0; i < PODS; i++) {
            String name = "row-" + i;
            ops.reporter(name, 1 + (i * 5) % 7); // 1..7 GiB, 200 GiB asked in all (250 with a 1 GiB reserve each): both GPUs fill
            ops.awaitRunning(name, Duration.ofSeconds(60));
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        var recorded = ops.recordedGpus();
        List<String> wrong = new ArrayList<>();
        Set<String> gpus = new HashSet<>();
        for (int i = 0; i < PODS; i++) {
            String name = "row-" + i;
            Pod p = ops.get(name);
            String booked = TestPods.bookedUuids(p);
            String env = TestPods.report(node.outDir(), name).get(Names.ENV_VISIBLE_DEVICES);
            gpus.add(booked);
            if (booked.isEmpty() || !booked.equals(recorded.get(name)) || !booked.equals(env))
                wrong.add(name + ": booked " + booked + ", kubelet recorded " + recorded.get(name) + ", container env " + env);
        }
        System.out.printf("e2e/node: %d pods in a row Running in %.1f s; %d of them on another GPU than booked%n", PODS, seconds, wrong.size());
        assertThat(gpus).as("the pods spread over both GPUs (else the check proves little)").hasSize(RealNode.GPUS);
        assertThat(wrong).as("pods whose kubelet record or env is not the booked GPU").isEmpty();
    }

    @AfterEach void cleanUp() throws InterruptedException {
        if (node != null) new PodOps(node).deleteAll();
    }
}
