package io.mpshare.e2e.k8s;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.Pod;
import io.mpshare.core.Names;
import io.mpshare.e2e.k8s.junit.RealControlPlane;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 12 items 1-2: what a person reads when a pod fits nowhere. 30 nodes of 2 H200; each GPU holds one filler
 * (70..89 GiB, a different size per node, so every node has a different amount free); then a pod of 100 GiB, which
 * every node's total admits (kube-scheduler's own count passes it to the extender) but no GPU can hold.
 * kube-scheduler puts the extender's reasons into the pod's FailedScheduling event through a printf-style call, cut at
 * 1,024 characters, grouping identical reasons as "N reason".
 */
@ExtendWith(RealControlPlane.class)
class ReasonsIT {
    static final int NODES = 30;

    @Test
    void fitsNowhere_eventIsGroupedReadableAndSaysWhatToChange(Cluster cluster) throws Exception {
        try (var s = new Scenario(cluster, "reasons", Map.of())) {
            s.nodes(NODES, 2);
            s.schedulerAndExtender();
            List<Pod> fillers = new ArrayList<>();
            for (int i = 0; i < NODES; i++) {
                for (int g = 0; g < 2; g++) fillers.add(s.gpuPodOn("filler-" + i + "-" + g, 70 + (i + g * 7) % 20, i));
            }
            s.createAll(fillers, 4);
            assertThat(Scenario.boundCount(s.awaitPods(l -> Scenario.allBound(l, fillers.size()), Duration.ofSeconds(180))))
                    .as("fillers bound").isEqualTo(fillers.size());

            s.create(s.gpuPod("too-big", 100));
            Event e = awaitEvent(s, "too-big", Duration.ofSeconds(60));
            String msg = e.getMessage();
            System.out.println("ReasonsIT: " + msg.length() + " chars: " + msg);
            assertThat(msg).as("printf mangling").doesNotContain("%!").doesNotContain("MISSING");
            assertThat(msg.length()).as("length").isLessThan(1024);
            assertThat(msg).as("not cut").doesNotEndWith("...");
            assertThat(msg).as("no node named, so reasons group").doesNotContain(s.name + "-");
            assertThat(msg).as("grouped over all " + NODES + " nodes").containsPattern("\\b" + NODES + " [a-z]");
            assertThat(msg).as("says what to change").contains(Names.RESOURCE_GPU_MEM).containsAnyOf("lower", "wait");
        }
    }

    static Event awaitEvent(Scenario s, String pod, Duration timeout) {
        long end = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < end) {
            var hit = s.events("FailedScheduling").stream().filter(e -> pod.equals(e.getInvolvedObject().getName())).findFirst();
            if (hit.isPresent()) return hit.get();
            ControlPlane.sleep(250);
        }
        throw new AssertionError("no FailedScheduling event for " + pod + " within " + timeout.toSeconds() + " s (the API server rejects an event whose expanded message passes 1,024 characters)");
    }
}
