package io.mpshare.e2e.k8s;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.scheduling.v1.PriorityClassBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import io.mpshare.core.Names;
import io.mpshare.e2e.k8s.junit.RealControlPlane;
import io.mpshare.testing.Pods;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The extender's preempt verb and the nominated pod's hold under the real kube-scheduler (issue 12 item 4), with the
 * chart's scheduler configuration ({@code preemptVerb: preempt}).
 *
 * <p>Node pv-n1 has two H200s (140 GiB each, 280 GiB in the node's total). low-a (100 GiB, priority 10) and low-b
 * (100 GiB, priority 20) fill one GPU each and filler (30 GiB, priority 5) sits beside one of them. high (60 GiB,
 * priority 1000) fits no GPU. kube-scheduler's own dry run counts node totals and reprieves higher priorities first,
 * so alone it names the filler, which frees no GPU enough, and high stays Pending (checked by hand: the chart without
 * {@code preemptVerb}); the extender's answer names low-a, whose GPU then has room. waiting (90 GiB, as low as low-a) is pending all along and would fit the freed GPU alone; the hold keeps
 * that room for high. There is no kubelet: the test finalises pods that get a deletion timestamp, as kubelet would.
 */
@ExtendWith(RealControlPlane.class)
class PreemptVerbIT {
    static final String NS = "pv";
    static final String GROUP = "e2e.mpshare.io/group";

    @Test
    void preemption_freesOneGpu_andTheLowerPriorityPodDoesNotTakeIt(Cluster cluster) throws Exception {
        KubernetesClient c = cluster.client();
        cluster.controlPlane().createNamespace(NS, Map.of());
        for (var pc : Map.of("pv-lowest", 5, "pv-low", 10, "pv-mid", 20, "pv-high", 1000).entrySet())
            c.resource(new PriorityClassBuilder().withNewMetadata().withName(pc.getKey()).endMetadata().withValue(pc.getValue()).build()).serverSideApply();
        GpuNodes.create(c, GpuNodes.Spec.h200("pv-n1", 2, Map.of(GROUP, "pv")));
        var logs = cluster.logs("PreemptVerbIT");
        var ext = cluster.components().extender("pv-extender", List.of("--scheduler-name=pv-sched"), logs);
        var sched = cluster.components().scheduler("pv-scheduler", Components.SchedulerSettings.single("pv-sched", ext.port()), logs);
        Map<String, Instant> deleting = new ConcurrentHashMap<>();
        try (Watch kubelet = finaliseDeletions(c, deleting)) {
            bound(c, create(c, sched, "low-a", 100, "pv-low"));
            bound(c, create(c, sched, "low-b", 100, "pv-mid"));
            bound(c, create(c, sched, "filler", 30, "pv-lowest"));
            create(c, sched, "waiting", 90, "pv-low");
            Instant t0 = Instant.now();
            create(c, sched, "high", 60, "pv-high");

            Pod high = bound(c, "high");
            Instant t1 = Instant.now();
            assertThat(deleting).containsOnlyKeys("low-a"); // one victim, the one that frees a GPU
            assertThat(c.pods().inNamespace(NS).withName("low-b").get()).isNotNull();
            assertThat(c.pods().inNamespace(NS).withName("filler").get()).isNotNull();
            assertThat(high.getMetadata().getAnnotations()).containsKey(Names.ANN_ALLOCATION);
            Pod waiting = c.pods().inNamespace(NS).withName("waiting").get();
            assertThat(waiting.getSpec().getNodeName()).as("the lower-priority pod did not take the freed room").isNull();
            System.out.printf("PreemptVerbIT: high created -> bound %d ms; victim deleted -> high bound %d ms%n",
                    Duration.between(t0, t1).toMillis(), Duration.between(deleting.get("low-a"), t1).toMillis());
        } finally {
            cluster.controlPlane().stop(sched.process());
            cluster.controlPlane().stop(ext.process());
        }
    }

    static String create(KubernetesClient c, Components.Scheduler sched, String name, long gib, String priorityClass) {
        Pod p = Pods.pod(name).namespace(NS).gpuMem(gib).build();
        p.getSpec().setSchedulerName(sched.schedulerName());
        p.getSpec().setPriorityClassName(priorityClass);
        p.getSpec().setNodeSelector(Map.of(GROUP, "pv"));
        c.resource(p).create();
        return name;
    }

    static Pod bound(KubernetesClient c, String name) {
        return c.pods().inNamespace(NS).withName(name).waitUntilCondition(p -> p != null && p.getSpec().getNodeName() != null, 120, TimeUnit.SECONDS);
    }

    /** kubelet's part of a deletion: a pod given a deletion timestamp is removed (grace 0); when is recorded. */
    static Watch finaliseDeletions(KubernetesClient c, Map<String, Instant> deleting) {
        return c.pods().inNamespace(NS).watch(new Watcher<>() {
            @Override public void eventReceived(Action action, Pod p) {
                if (action == Action.DELETED || p.getMetadata().getDeletionTimestamp() == null) return;
                deleting.putIfAbsent(p.getMetadata().getName(), Instant.now());
                c.pods().inNamespace(NS).withName(p.getMetadata().getName()).withGracePeriod(0).delete();
            }

            @Override public void onClose(WatcherException e) { }
        });
    }
}
