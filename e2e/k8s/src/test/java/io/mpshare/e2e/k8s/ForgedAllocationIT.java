package io.mpshare.e2e.k8s;

import io.fabric8.kubernetes.api.model.Pod;
import io.mpshare.core.Names;
import io.mpshare.e2e.k8s.junit.RealControlPlane;
import io.mpshare.testing.Pods;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The extender's own defence against forged allocation annotations, through the real API server and its informer. This
 * tier applies the chart's RBAC but not its ValidatingAdmissionPolicies, so the tenant-annotations policy (which refuses
 * these writes in a cluster installed by the chart) is off here: what the ledger does with the annotations is the
 * extender's alone. One node of 2 × 16 GiB: the review's squat pod (asks no GPU, a scheduler no one runs, both GPUs as
 * ASSIGNED), two pods asking 2 GiB whose annotations charge {@code Long.MAX_VALUE} on GPU 0 (bound to the node
 * directly), and a pending pod asking 2 GiB that carries an allocation for GPU 1. The ledger books none of them beyond
 * what the bound pods' own resources ask, and a 14 GiB pod still binds.
 */
@ExtendWith(RealControlPlane.class)
class ForgedAllocationIT {
    @Test void forgedAnnotations_bookNothingBeyondTheResources_aPodStillBinds(Cluster cluster) throws Exception {
        try (var s = new Scenario(cluster, "forged", Map.of())) {
            String node = s.node("0", 2, 16_384).getMetadata().getName();
            var ext = s.schedulerAndExtender();

            Pod squat = Pods.pod("squat").namespace(s.ns)
                    .annotation(Names.ANN_ALLOCATION, "v1;node=" + node + ";gpus=0,1;uuids=GPU-" + node + "-0,GPU-" + node + "-1;reserve=0;"
                            + "charge=16000/100;c=main:16000:100")
                    .annotation(Names.ANN_ASSIGNED, "true").build();
            squat.getSpec().setSchedulerName("no-such-scheduler");
            s.create(squat);
            for (String name : List.of("max-a", "max-b")) {
                Pod p = s.gpuPod(name, 2);
                p.getSpec().setNodeName(node); // bound at create: the extender never saw it
                p.getMetadata().setAnnotations(Map.of(Names.ANN_ALLOCATION, "v1;node=" + node + ";gpus=0;uuids=GPU-" + node + "-0;reserve=1024;"
                        + "charge=" + Long.MAX_VALUE + "/0;c=main:" + Long.MAX_VALUE + ":0"));
                s.create(p);
            }
            Pod preset = s.gpuPod("preset", 2);
            preset.getSpec().setSchedulerName("no-such-scheduler"); // stays pending
            preset.getMetadata().setAnnotations(Map.of(Names.ANN_ALLOCATION, "v1;node=" + node + ";gpus=1;uuids=GPU-" + node + "-1;reserve=1024;"
                    + "charge=16000/0;c=main:16000:0", Names.ANN_ASSIGNED, "true"));
            s.create(preset);
            s.awaitPods(pods -> pods.size() == 4, Duration.ofSeconds(30));

            s.create(s.gpuPod("real", 14));
            assertThat(Trials.awaitBound(s, "real", Duration.ofSeconds(30))).as("a 14 GiB pod binds beside the forgeries").isNotNull();
            var gpus = Trials.awaitLedger(ext, node, g -> Trials.podsOn(g) == 1, Duration.ofSeconds(30));
            long booked = 0;
            for (var g : gpus) booked += g.get("allocatedMiB").asLong();
            assertThat(booked).as("only real's 14 GiB + reserve: " + gpus).isEqualTo(14 * 1024 + 1024);
        }
    }
}
