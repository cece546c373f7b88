package io.mpshare.deviceplugin.allocation;

import io.mpshare.core.MemoryUnit;
import io.mpshare.core.Names;
import io.mpshare.core.model.Gpu;
import io.mpshare.core.model.NodeInventory;
import io.mpshare.core.model.PodKey;
import io.mpshare.deviceplugin.devices.DeviceIds;
import io.mpshare.deviceplugin.kubelet.PodResourcesClient.Holding;
import io.mpshare.deviceplugin.testkit.RecordingWrites;
import io.mpshare.deviceplugin.testkit.TestPods;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class ReconcilerTest {
    static final NodeInventory INV = new NodeInventory("n1", List.of(
            new Gpu(0, "GPU-aaaa", "NVIDIA H200", 143_771, true),
            new Gpu(1, "GPU-bbbb", "NVIDIA H200", 143_771, true)));
    static final Instant T0 = Instant.parse("2026-11-30T00:00:00Z");

    final RecordingWrites writes = new RecordingWrites();
    final AllocationManager manager = new AllocationManager("n1", MemoryUnit.GIB, INV, () -> "blue",
            new AnswerBuilder(Path.of(Names.RUN_DIR), false, MemoryUnit.GIB), writes, new AnswerLog(), InstantSource.fixed(T0),
            AllocationManager.ChangeWaiter.NONE, Duration.ZERO);
    final List<Holding> held = new ArrayList<>();
    final Reconciler reconciler = new Reconciler(() -> held, manager, writes, InstantSource.fixed(T0), Duration.ofMinutes(10));

    static List<String> ids(String gpu, int from, int n) {
        var out = new ArrayList<String>();
        for (int i = 0; i < n; i++) out.add(DeviceIds.id(gpu, from + i));
        return out;
    }

    @Test void reconcile_twinsAdmittedInReverse_annotationsNameTheGpuEachReallyGot() throws Exception {
        manager.upserted(TestPods.pod("twin-a").mem("main", 7).on("n1").placed(INV, 0).assumedAt(T0).build());
        manager.upserted(TestPods.pod("twin-b").mem("main", 7).on("n1").placed(INV, 1).assumedAt(T0.plusMillis(1)).build());
        // kubelet admits twin-b first; Allocate cannot tell, so twin-b's container gets twin-a's answer (GPU 0).
        var idsB = ids("GPU-aaaa", 0, 7);
        var idsA = ids("GPU-bbbb", 0, 7);
        assertThat(manager.allocate(idsB).getEnvsMap()).containsEntry(Names.ENV_VISIBLE_DEVICES, "GPU-aaaa");
        assertThat(manager.allocate(idsA).getEnvsMap()).containsEntry(Names.ENV_VISIBLE_DEVICES, "GPU-bbbb");
        held.add(new Holding(PodKey.of("default", "twin-b"), "main", idsB));
        held.add(new Holding(PodKey.of("default", "twin-a"), "main", idsA));
        writes.writes.clear();

        assertThat(reconciler.reconcile()).isEqualTo(new Reconciler.Result(2, 0, 0));
        assertThat(writes.writes).hasSize(2);
        var b = writes.writes.stream().filter(w -> w.pod().name().equals("twin-b")).findFirst().orElseThrow();
        var a = writes.writes.stream().filter(w -> w.pod().name().equals("twin-a")).findFirst().orElseThrow();
        assertThat(b.annotations().get(Names.ANN_ALLOCATION)).contains("gpus=0;uuids=GPU-aaaa");
        assertThat(a.annotations().get(Names.ANN_ALLOCATION)).contains("gpus=1;uuids=GPU-bbbb");
        assertThat(b.annotations()).containsEntry(Names.ANN_ASSIGNED, "true").containsEntry(Names.ACK_GPU_MEM_IDX, "0")
                .doesNotContainKey(Names.ANN_ASSUME_TIME);

        writes.writes.clear();
        assertThat(reconciler.reconcile()).isEqualTo(new Reconciler.Result(0, 0, 0));
        assertThat(writes.writes).isEmpty();
    }

    @Test void reconcile_inOrder_nothingToFix() throws Exception {
        manager.upserted(TestPods.pod("p").mem("main", 7).on("n1").placed(INV, 0).build());
        var d = ids("GPU-aaaa", 0, 7);
        manager.allocate(d);
        manager.upserted(TestPods.pod("p").mem("main", 7).on("n1").placed(INV, 0).annotation(Names.ANN_ASSIGNED, "true").build());
        held.add(new Holding(PodKey.of("default", "p"), "main", d));
        assertThat(reconciler.reconcile()).isEqualTo(new Reconciler.Result(0, 0, 0));
    }

    @Test void reconcile_assignedPatchLost_marksAgain() throws Exception {
        manager.upserted(TestPods.pod("p").mem("main", 7).on("n1").placed(INV, 0).build());
        var d = ids("GPU-aaaa", 0, 7);
        manager.allocate(d);
        held.add(new Holding(PodKey.of("default", "p"), "main", d));
        writes.writes.clear();
        assertThat(reconciler.reconcile().marked()).isEqualTo(1);
        assertThat(writes.assigned()).containsExactly(PodKey.of("default", "p"));
    }

    @Test void reconcile_admittedBeforeARestart_markedAndNeverMatchedAgain() throws Exception {
        // an earlier run answered "old" but its assigned patch was lost; this run never answered it
        manager.upserted(TestPods.pod("old").mem("main", 7).on("n1").placed(INV, 0).assumedAt(T0).build());
        manager.upserted(TestPods.pod("new").mem("main", 7).on("n1").placed(INV, 1).assumedAt(T0.plusSeconds(1)).build());
        held.add(new Holding(PodKey.of("default", "old"), "main", ids("GPU-aaaa", 0, 7)));
        assertThat(reconciler.reconcile().marked()).isEqualTo(1);
        assertThat(writes.assigned()).containsExactly(PodKey.of("default", "old"));
        assertThat(manager.allocate(ids("GPU-bbbb", 0, 7)).getEnvsMap()).containsEntry(Names.ENV_VISIBLE_DEVICES, "GPU-bbbb");
    }

    @Test void reconcile_answersOfGoneContainers_pruned() throws Exception {
        manager.upserted(TestPods.pod("p").mem("main", 7).on("n1").placed(INV, 0).build());
        manager.allocate(ids("GPU-aaaa", 0, 7));
        var later = new Reconciler(() -> held, manager, writes, InstantSource.fixed(T0.plus(Duration.ofMinutes(11))), Duration.ofMinutes(10));
        later.reconcile();
        assertThat(manager.answerLog().size()).isZero();
    }
}
