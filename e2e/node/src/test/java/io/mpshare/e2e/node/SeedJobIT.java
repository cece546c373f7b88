package io.mpshare.e2e.node;

import io.fabric8.kubernetes.api.model.ContainerStateTerminated;
import io.fabric8.kubernetes.api.model.DeletionPropagation;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.mpshare.core.Names;
import io.mpshare.testing.Waits;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The seed's sample Job on the real node: it runs, and its container saw its env, a read-only pipe directory, its cap,
 * and (device-specs on the fake driver tree) its GPU's device node and the driver's files.
 */
@ExtendWith(NodeExtension.class)
class SeedJobIT {
    @Test void seedJob_runs_containerSawEnvReadOnlyPipeAndCap(RealNode node) throws Exception {
        Path out = node.outDir();
        Job job = seedJob(node, out);
        long start = System.nanoTime();
        node.api().batch().v1().jobs().inNamespace("default").resource(job).create();
        try {
            check(node, out, start);
        } finally {
            node.api().batch().v1().jobs().inNamespace("default").withName("mps-sample").withPropagationPolicy(DeletionPropagation.BACKGROUND).delete();
        }
    }

    private static void check(RealNode node, Path out, long start) throws Exception {
        String[] podName = new String[1];
        Waits.until(Duration.ofSeconds(60), () -> terminated(node, podName) != null, () -> "seed Job pod did not finish: " + pods(node));
        double seconds = (System.nanoTime() - start) / 1e9;
        ContainerStateTerminated t = terminated(node, podName);
        assertThat(t.getExitCode()).as("exit code; message: " + t.getMessage()).isZero();
        var seen = TestPods.report(out, "mps-sample");
        Pod pod = node.api().pods().inNamespace("default").withName(podName[0]).get();
        assertThat(seen.get(Names.ENV_VISIBLE_DEVICES)).isNotBlank().isEqualTo(TestPods.bookedUuids(pod));
        long reserve = TestPods.reserveMib(pod);
        assertThat(reserve).as("the booked CUDA context reserve").isPositive();
        String cap = "0=" + (7 * 1024 + reserve) + "M"; // the 7 GiB asked + the context reserve, for ordinal 0
        assertThat(seen.get(Names.ENV_MPS_MEM_LIMIT)).isEqualTo(cap);
        assertThat(seen.get(Names.ENV_MPS_PIPE)).isEqualTo(node.runDir().resolve("blue/pipe").toString());
        assertThat(seen.get("pipe.mount")).as("pipe directory mount options").startsWith("ro");
        assertThat(seen.get("pipe.write")).isEqualTo("refused");
        assertThat(t.getMessage()).contains(Names.ENV_MPS_MEM_LIMIT + "=" + cap);
        assertThat(pod.getMetadata().getAnnotations()).containsEntry(Names.ANN_ASSIGNED, "true");
        // device-specs on the fake driver tree: the booked GPU's node and the control nodes, the driver's files read-only
        assertThat(seen.get("dev.nvidia").split(" ")).containsExactlyInAnyOrder("nvidia" + TestPods.bookedGpus(pod), "nvidiactl", "nvidia-uvm");
        assertThat(seen.get("driver.libcuda.mount")).startsWith("ro");
        assertThat(seen.get("driver.smi")).isEqualTo(FakeDriverTree.SMI_SAYS);
        System.out.printf("e2e/node: seed Job finished %.2f s after create; the container saw %s=%s, pipe %s (%s)%n",
                seconds, Names.ENV_MPS_MEM_LIMIT, cap, seen.get("pipe.mount"), seen.get("pipe.write"));
    }

    /** examples/mps-sample-job.yaml as the seed wrote it, with what this node needs: the local image, no pulls, host network, our scheduler. */
    static Job seedJob(RealNode node, Path out) throws Exception {
        String yaml = Files.readString(NodeTier.repoRoot().resolve("examples/mps-sample-job.yaml")).replace("<NODE_NAME>", RealNode.NAME);
        Job job = Serialization.unmarshal(yaml, Job.class);
        var spec = job.getSpec().getTemplate().getSpec();
        spec.setSchedulerName(node.schedulerName());
        spec.setHostNetwork(true);
        var c = spec.getContainers().getFirst();
        c.setImage(TestImages.SHELL);
        c.setImagePullPolicy("Never");
        c.setCommand(List.of("/bin/sh", "-c", TestPods.reportScript("mps-sample", false)));
        c.setWorkingDir("/");
        c.setVolumeMounts(List.of(new io.fabric8.kubernetes.api.model.VolumeMountBuilder().withName("out").withMountPath("/out").build()));
        spec.setVolumes(List.of(new io.fabric8.kubernetes.api.model.VolumeBuilder().withName("out").withNewHostPath().withPath(out.toString()).endHostPath().build()));
        return job;
    }

    private static ContainerStateTerminated terminated(RealNode node, String[] name) {
        for (Pod p : node.api().pods().inNamespace("default").withLabel("app", "mps-sample").list().getItems()) {
            name[0] = p.getMetadata().getName();
            var statuses = p.getStatus().getContainerStatuses();
            if (statuses != null && !statuses.isEmpty() && statuses.getFirst().getState().getTerminated() != null)
                return statuses.getFirst().getState().getTerminated();
        }
        return null;
    }

    private static String pods(RealNode node) {
        return node.api().pods().inNamespace("default").list().getItems().stream()
                .map(p -> p.getMetadata().getName() + " " + p.getStatus().getPhase() + " " + p.getStatus().getConditions()).toList().toString();
    }
}
