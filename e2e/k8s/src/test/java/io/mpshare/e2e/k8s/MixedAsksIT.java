package io.mpshare.e2e.k8s;

import io.fabric8.kubernetes.api.model.Pod;
import io.mpshare.core.Names;
import io.mpshare.e2e.k8s.junit.RealControlPlane;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The asks beside plain GPU memory, through the real kube-scheduler: a pod over two GPUs ({@code aliyun.com/gpu-count}),
 * compute shares ({@code aliyun.com/gpu-core.percentage}) that must not share a GPU past 100, and the asks no GPU
 * here can meet. 2 nodes of 2 H200.
 * - {@code pair}: 30 GiB over 2 GPUs: bound on two GPUs of one node, 15 GiB (+ the reserve) on each;
 * - {@code core-0..3}: 4 GiB and 60% of cores each: one per GPU, 4 GPUs; {@code core-4} then fits no GPU's cores;
 * - {@code three}: 3 GPUs on nodes of 2; {@code uneven}: 15 GiB over 2 GPUs (not whole per GPU).
 * Each refused pod gets a FailedScheduling event kube-scheduler could print (no {@code %!}, under 1,024 characters)
 * that names what to change.
 */
@ExtendWith(RealControlPlane.class)
class MixedAsksIT {

    @Test
    void multiGpuAndCoreShares_placedWithoutOverCommit_refusalsReadable(Cluster cluster) throws Exception {
        try (var s = new Scenario(cluster, "mixed", Map.of())) {
            s.nodes(2, 2);
            s.schedulerAndExtender();

            s.create(s.pod("pair", b -> b.gpuMem(30).gpuCount(2)));
            for (int i = 0; i < 4; i++) s.create(s.pod("core-" + i, b -> b.gpuMem(4).gpuCore(60)));
            List<Pod> placed = s.awaitPods(l -> Scenario.allBound(l, 5), Duration.ofSeconds(60));
            assertThat(Scenario.boundCount(placed)).as("pair and core-0..3 bound").isEqualTo(5);
            assertThat(s.overCommit(placed)).as("memory and cores per GPU").isEmpty();

            Map<String, String> pair = Scenario.fields(annotation(placed, "pair"));
            assertThat(pair.get("gpus").split(",")).as("pair's GPUs").hasSize(2).doesNotHaveDuplicates();
            Set<String> coreGpus = new HashSet<>();
            for (int i = 0; i < 4; i++) {
                Map<String, String> f = Scenario.fields(annotation(placed, "core-" + i));
                coreGpus.add(f.get("node") + "/" + f.get("gpus"));
            }
            assertThat(coreGpus).as("one 60%% share per GPU").hasSize(4);

            s.create(s.pod("core-4", b -> b.gpuMem(4).gpuCore(60)));
            s.create(s.pod("three", b -> b.gpuMem(30).gpuCount(3)));
            s.create(s.pod("uneven", b -> b.gpuMem(15).gpuCount(2)));
            for (String name : List.of("core-4", "three", "uneven")) {
                String msg = ReasonsIT.awaitEvent(s, name, Duration.ofSeconds(60)).getMessage();
                System.out.println("MixedAsksIT " + name + ": " + msg);
                assertThat(msg).as(name + ": printf mangling").doesNotContain("%!").doesNotContain("MISSING");
                assertThat(msg.length()).as(name + ": length").isLessThan(1024);
                assertThat(msg).as(name + ": names what to change").containsAnyOf(Names.RESOURCE_GPU_CORE, Names.LABEL_GPU_COUNT, Names.RESOURCE_GPU_MEM);
            }
            assertThat(s.pods()).filteredOn(p -> List.of("core-4", "three", "uneven").contains(p.getMetadata().getName()))
                    .allSatisfy(p -> assertThat(p.getSpec().getNodeName()).as(p.getMetadata().getName()).isNull());
        }
    }

    static String annotation(List<Pod> pods, String name) {
        return pods.stream().filter(p -> p.getMetadata().getName().equals(name)).findFirst().orElseThrow()
                .getMetadata().getAnnotations().get(Names.ANN_ALLOCATION);
    }
}
