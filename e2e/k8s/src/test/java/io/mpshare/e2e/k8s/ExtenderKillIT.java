package io.mpshare.e2e.k8s;

import io.fabric8.kubernetes.api.model.Pod;
import io.mpshare.core.Names;
import io.mpshare.e2e.k8s.junit.RealControlPlane;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 12 item 7: {@code kill -9} of the extender in the middle of BurstIT's 120-pod burst, then a new extender on
 * the same port (as the container restarts). Whatever was in flight — a filter, a bind between its annotation PATCH
 * and the Binding — every pod ends bound once, where its allocation says, with no GPU over-committed; and the new
 * extender must not answer before its view is synced (an early "no inventory" would park pods for minutes).
 */
@ExtendWith(RealControlPlane.class)
class ExtenderKillIT {

    @Test
    void killedMidBurst_everyPodBoundOnce_noOverCommit(Cluster cluster) throws Exception {
        try (var s = new Scenario(cluster, "kill", Map.of())) {
            s.nodes(10, 8);
            var ext = s.extender("extender", 0);
            var scheduler = s.scheduler("scheduler", Components.SchedulerSettings.single(s.schedulerName, ext.port()));
            List<Pod> pods = BurstIT.burst(s, "p", 40, 80, 11);
            long t0 = System.nanoTime();
            s.createAll(pods, 8); // the scheduler works through them at a few pods/s here: the kill lands mid-burst
            List<Pod> mid = s.awaitPods(l -> Scenario.boundCount(l) >= 30, Duration.ofSeconds(120));
            long boundAtKill = Scenario.boundCount(mid);
            ext.process().kill9();
            s.extender("restarted", ext.port());
            List<Pod> after = s.awaitPods(l -> Scenario.allBound(l, 120), Duration.ofSeconds(240));
            double secs = (System.nanoTime() - t0) / 1e9;

            assertThat(boundAtKill).as("killed mid-burst").isLessThan(120);
            assertThat(Scenario.boundCount(after)).as("bound of 120").isEqualTo(120);
            assertThat(after).allSatisfy(p -> assertThat(p.getMetadata().getAnnotations()).containsKey(Names.ANN_ALLOCATION));
            assertThat(s.overCommit(after)).isEmpty();
            var scheduled = s.scheduledCounts();
            assertThat(scheduled).allSatisfy((pod, n) -> assertThat(n).as(pod).isEqualTo(1));
            // A bind the extender finished but could not answer before the kill (kube-scheduler reads EOF) leaves its pod
            // bound once, with its allocation (above), and without a Scheduled event: kube-scheduler takes the bind as
            // failed, then finds the pod assigned and drops it from its queue. Every pod without one must be such a pod.
            String log = java.nio.file.Files.readString(scheduler.process().log());
            String thisRun = log.substring(Math.max(0, log.lastIndexOf("\n# ") + 1));
            int cutOff = 0;
            for (Pod p : after) {
                String name = p.getMetadata().getName();
                if (scheduled.containsKey(name)) continue;
                cutOff++;
                assertThat(thisRun).as("%s has no Scheduled event, so kube-scheduler must have seen its bind cut off", name)
                        .contains("\"Failed to bind pod\" pod=\"" + s.ns + "/" + name + "\"");
            }
            System.out.printf("ExtenderKillIT: killed at %d bound; all 120 bound after %.2f s; %d FailedScheduling events; %d binds done but cut off by the kill%n",
                    boundAtKill, secs, s.events("FailedScheduling").size(), cutOff);
        }
    }
}
