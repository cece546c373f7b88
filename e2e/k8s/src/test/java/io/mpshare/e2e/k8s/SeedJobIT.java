package io.mpshare.e2e.k8s;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.mpshare.core.Names;
import io.mpshare.e2e.k8s.junit.RealControlPlane;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.nio.file.Files;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 12: the seed's sample Job ({@code examples/mps-sample-job.yaml}, byte for byte the seed's, with
 * {@code <NODE_NAME>} filled in as the seed tells the user) created unchanged on the real API server, through the
 * chart's webhook (mutating: steers it to the mpshare scheduler; validating: admits it, in a namespace labelled
 * {@code mpshare.io/tenancy=trusted} since the seed runs as root with hostIPC and hostPID), the Job controller,
 * kube-scheduler with the chart's configuration and the extender: its pod is bound to the named node with its
 * allocation annotation.
 */
@ExtendWith(RealControlPlane.class)
class SeedJobIT {

    @Test
    void seedJob_unchanged_boundWithAllocation(Cluster cluster) throws Exception {
        try (var s = new Scenario(cluster, "seed", Map.of(Names.LABEL_TENANCY, Names.TENANCY_TRUSTED))) {
            s.nodes(2, 8);
            s.schedulerAndExtender();
            var webhook = cluster.webhooks().start("seed-webhook", s.ns, s.schedulerName, cluster.logs(s.name));
            try {
                String node = s.name + "-1";
                String yaml = Files.readString(cluster.repoRoot().resolve("examples/mps-sample-job.yaml")).replace("<NODE_NAME>", node);
                HasMetadata job = s.c.getKubernetesSerialization().unmarshal(yaml);
                assertThat(job).isInstanceOf(Job.class);
                s.c.resource((Job) job).inNamespace(s.ns).create();

                List<Pod> pods = s.awaitPods(l -> l.size() == 1 && l.getFirst().getSpec().getNodeName() != null, Duration.ofSeconds(120));
                assertThat(pods).as("the Job's pod").hasSize(1);
                Pod pod = pods.getFirst();
                assertThat(pod.getSpec().getSchedulerName()).as("steered by the webhook").isEqualTo(s.schedulerName);
                assertThat(pod.getSpec().getNodeName()).isEqualTo(node);
                assertThat(pod.getMetadata().getAnnotations()).containsKey(Names.ANN_ALLOCATION);
                assertThat(Scenario.fields(pod.getMetadata().getAnnotations().get(Names.ANN_ALLOCATION))).containsEntry("node", node);
                assertThat(pod.getSpec().getContainers().getFirst().getResources().getLimits().get(Names.RESOURCE_GPU_MEM).toString()).isEqualTo("7");
                assertThat(s.overCommit(pods)).isEmpty();
            } finally {
                cluster.webhooks().stop(webhook);
            }
        }
    }
}
