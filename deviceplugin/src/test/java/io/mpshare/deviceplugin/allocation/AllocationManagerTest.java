package io.mpshare.deviceplugin.allocation;

import io.fabric8.kubernetes.api.model.Pod;
import io.mpshare.core.MemoryUnit;
import io.mpshare.core.Names;
import io.mpshare.core.model.Gpu;
import io.mpshare.core.model.NodeInventory;
import io.mpshare.core.model.PodKey;
import io.mpshare.deviceplugin.api.v1beta1.ContainerAllocateResponse;
import io.mpshare.deviceplugin.api.v1beta1.Mount;
import io.mpshare.deviceplugin.devices.DeviceIds;
import io.mpshare.deviceplugin.kubelet.ResourceHandler.AllocateRefused;
import io.mpshare.deviceplugin.testkit.RecordingWrites;
import io.mpshare.deviceplugin.testkit.TestPods;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class AllocationManagerTest {
    static final NodeInventory INV = new NodeInventory("n1", List.of(
            new Gpu(0, "GPU-aaaa", "NVIDIA H200", 143_771, true),
            new Gpu(1, "GPU-bbbb", "NVIDIA H200", 143_771, true)));
    static final Instant T0 = Instant.parse("2026-11-30T00:00:00Z");

    final RecordingWrites writes = new RecordingWrites();
    String colour = "blue";
    final AllocationManager manager = manager(false);
    final AtomicInteger ids = new AtomicInteger();

    AllocationManager manager(boolean devShm) {
        return new AllocationManager("n1", MemoryUnit.GIB, INV, () -> colour, new AnswerBuilder(Path.of(Names.RUN_DIR), devShm, MemoryUnit.GIB),
                writes, new AnswerLog(), InstantSource.fixed(T0), AllocationManager.ChangeWaiter.NONE, Duration.ZERO);
    }

    List<String> devices(int n) {
        var out = new ArrayList<String>();
        for (int i = 0; i < n; i++) out.add(DeviceIds.id("GPU-aaaa", ids.getAndIncrement()));
        return out;
    }

    Pod add(Pod p) { manager.upserted(p); return p; }

    @Test void allocate_seedSample_sevenGiBPlusReserveOnItsGpu() throws Exception {
        add(TestPods.pod("mps-sample").mem("main", 7).hostIPC().on("n1").placed(INV, 1).build());
        ContainerAllocateResponse r = manager.allocate(devices(7));
        assertThat(r.getEnvsMap())
                .containsEntry(Names.ENV_VISIBLE_DEVICES, "GPU-bbbb")
                .containsEntry(Names.ENV_MPS_MEM_LIMIT, "0=7680M")
                .containsEntry(Names.ENV_MPS_PIPE, "/run/mpshare/blue/pipe")
                .containsEntry(AnswerBuilder.ENV_POD, "default/mps-sample")
                .containsEntry(AnswerBuilder.ENV_CONTAINER, "main")
                .containsEntry(Names.ACK_GPU_MEM_IDX, "1")
                .containsEntry(Names.ACK_GPU_MEM_POD, "7")
                .doesNotContainKey(Names.ENV_MPS_THREADS);
        assertThat(r.getMountsList()).containsExactly(Mount.newBuilder().setHostPath("/run/mpshare/blue/pipe")
                .setContainerPath("/run/mpshare/blue/pipe").setReadOnly(true).build());
        assertThat(writes.assigned()).containsExactly(PodKey.of("default", "mps-sample"));
    }

    @Test void allocate_twoGpus_capForEachVisibleOrdinal() throws Exception {
        add(TestPods.pod("wide").mem("main", 14).gpuCount(2).on("n1").placed(INV, 0, 1).build());
        var r = manager.allocate(devices(14));
        assertThat(r.getEnvsMap()).containsEntry(Names.ENV_VISIBLE_DEVICES, "GPU-aaaa,GPU-bbbb")
                .containsEntry(Names.ENV_MPS_MEM_LIMIT, "0=7680M,1=7680M")
                .containsEntry(AnswerBuilder.ENV_GPU_INDEX, "0,1");
    }

    @Test void allocate_coreAsked_threadPercentage() throws Exception {
        add(TestPods.pod("p").memCore("main", 4, 30).on("n1").placed(INV, 0).build());
        assertThat(manager.allocate(devices(4)).getEnvsMap()).containsEntry(Names.ENV_MPS_THREADS, "30");
    }

    @Test void allocate_greenGeneration_pipeOfGreen() throws Exception {
        colour = "green";
        add(TestPods.pod("p").mem("main", 2).on("n1").placed(INV, 0).build());
        assertThat(manager.allocate(devices(2)).getEnvsMap()).containsEntry(Names.ENV_MPS_PIPE, "/run/mpshare/green/pipe");
    }

    @Test void allocate_devShmFlag_mountsDevShm() throws Exception {
        var m = manager(true);
        m.upserted(TestPods.pod("p").mem("main", 2).on("n1").placed(INV, 0).build());
        assertThat(m.allocate(devices(2)).getMountsList()).extracting(Mount::getContainerPath).contains("/dev/shm");
    }

    @Test void allocate_sameUnits_oldestAssumeTimeFirst() throws Exception {
        add(TestPods.pod("young").mem("main", 3).on("n1").placed(INV, 0).assumedAt(T0.plusSeconds(5)).build());
        add(TestPods.pod("old").mem("main", 3).on("n1").placed(INV, 1).assumedAt(T0).build());
        assertThat(manager.allocate(devices(3)).getEnvsMap()).containsEntry(AnswerBuilder.ENV_POD, "default/old");
        assertThat(manager.allocate(devices(3)).getEnvsMap()).containsEntry(AnswerBuilder.ENV_POD, "default/young");
    }

    @Test void allocate_unitsDiffer_matchesBySize() throws Exception {
        add(TestPods.pod("small").mem("main", 2).on("n1").placed(INV, 0).assumedAt(T0).build());
        add(TestPods.pod("big").mem("main", 9).on("n1").placed(INV, 1).assumedAt(T0.plusSeconds(1)).build());
        assertThat(manager.allocate(devices(9)).getEnvsMap()).containsEntry(AnswerBuilder.ENV_POD, "default/big");
    }

    @Test void allocate_initThenApp_assignedOnlyAfterLastContainer() throws Exception {
        add(TestPods.pod("p").initMem("setup", 3).mem("main", 7).on("n1").placed(INV, 0).build());
        assertThat(manager.allocate(devices(3)).getEnvsMap()).containsEntry(AnswerBuilder.ENV_CONTAINER, "setup");
        assertThat(writes.assigned()).isEmpty();
        assertThat(manager.allocate(devices(7)).getEnvsMap()).containsEntry(AnswerBuilder.ENV_CONTAINER, "main");
        assertThat(writes.assigned()).containsExactly(PodKey.of("default", "p"));
    }

    @Test void allocate_recordsTheColourGiven_withAssigned() throws Exception {
        colour = "green";
        add(TestPods.pod("p").mem("main", 7).on("n1").placed(INV, 0).build());
        manager.allocate(devices(7));
        assertThat(writes.writes).anySatisfy(w -> assertThat(w.annotations()).containsEntry(Names.ANN_MPS_COLOUR, "green"));
    }

    @Test void allocate_colourSwitchBetweenContainers_recordsBoth() throws Exception {
        add(TestPods.pod("p").initMem("setup", 3).mem("main", 7).on("n1").placed(INV, 0).build());
        manager.allocate(devices(3));
        colour = "green";
        manager.allocate(devices(7));
        assertThat(writes.writes).anySatisfy(w -> assertThat(w.annotations()).containsEntry(Names.ANN_MPS_COLOUR, "blue,green"));
    }

    @Test void allocate_podPartlyAnswered_goesBeforeOlderPod() throws Exception {
        add(TestPods.pod("two").mem("a", 4).mem("b", 4).on("n1").placed(INV, 0).assumedAt(T0.plusSeconds(10)).build());
        manager.allocate(devices(4));
        add(TestPods.pod("older").mem("main", 4).on("n1").placed(INV, 1).assumedAt(T0).build());
        var r = manager.allocate(devices(4));
        assertThat(r.getEnvsMap()).containsEntry(AnswerBuilder.ENV_POD, "default/two").containsEntry(AnswerBuilder.ENV_CONTAINER, "b");
    }

    @Test void allocate_noPodOfThatSize_refusedNamingWhatWaits() {
        add(TestPods.pod("p").mem("main", 3).on("n1").placed(INV, 0).build());
        assertThatThrownBy(() -> manager.allocate(devices(5))).isInstanceOf(AllocateRefused.class)
                .hasMessageContaining("no pod bound to node n1 is waiting for a container of 5 GiB")
                .hasMessageContaining("default/p [3]");
    }

    @Test void allocate_podWithoutAllocation_refusedAsNotPlacedByExtender() {
        add(TestPods.pod("preset").mem("main", 7).on("n1").build());
        assertThatThrownBy(() -> manager.allocate(devices(7))).isInstanceOf(AllocateRefused.class)
                .hasMessageContaining("Pod default/preset asks aliyun.com/gpu-mem but carries no mpshare.io/allocation")
                .hasMessageContaining("not placed by the mpshare scheduler extender");
    }

    @Test void allocate_malformedAllocation_refusedWithTheReason() {
        add(TestPods.pod("bad").mem("main", 7).on("n1").annotation(Names.ANN_ALLOCATION, "v1;node=n1;gpus=x").build());
        assertThatThrownBy(() -> manager.allocate(devices(7))).isInstanceOf(AllocateRefused.class)
                .hasMessageContaining("mpshare.io/allocation of pod default/bad cannot be read");
    }

    @Test void allocate_allocationNamesAnotherNode_refused() {
        Pod p = TestPods.pod("elsewhere").mem("main", 7).on("n2").placed(INV, 0).build();
        add(p);
        assertThatThrownBy(() -> manager.allocate(devices(7))).isInstanceOf(AllocateRefused.class)
                .hasMessageContaining("default/elsewhere has an allocation for node n2, not n1");
    }

    @Test void allocate_podAlreadyAssigned_notAnsweredAgain() throws Exception {
        add(TestPods.pod("p").mem("main", 7).on("n1").placed(INV, 0).annotation(Names.ANN_ASSIGNED, "true").build());
        assertThatThrownBy(() -> manager.allocate(devices(7))).isInstanceOf(AllocateRefused.class);
    }

    @Test void allocate_sameContainerNeverTwice_evenBeforeAssignedComesBack() throws Exception {
        add(TestPods.pod("p").mem("main", 7).on("n1").placed(INV, 0).build());
        manager.allocate(devices(7));
        assertThatThrownBy(() -> manager.allocate(devices(7))).isInstanceOf(AllocateRefused.class);
    }

    @Test void allocate_deletedPod_forgotten() {
        Pod p = add(TestPods.pod("p").mem("main", 7).on("n1").placed(INV, 0).build());
        manager.deleted(p);
        assertThatThrownBy(() -> manager.allocate(devices(7))).isInstanceOf(AllocateRefused.class);
    }

    @Test void allocate_concurrentCalls_eachContainerAnsweredOnce() throws Exception {
        for (int i = 0; i < 110; i++) add(TestPods.pod("p" + i).mem("main", 1).on("n1").placed(INV, i % 2).assumedAt(T0.plusSeconds(i)).build());
        var pool = Executors.newFixedThreadPool(8);
        var futures = new ArrayList<Future<String>>();
        for (int i = 0; i < 110; i++) {
            var d = devices(1);
            futures.add(pool.submit(() -> manager.allocate(d).getEnvsMap().get(AnswerBuilder.ENV_POD)));
        }
        Set<String> pods = ConcurrentHashMap.newKeySet();
        for (var f : futures) assertThat(pods.add(f.get())).isTrue();
        pool.shutdown();
        assertThat(pods).hasSize(110);
        assertThat(writes.assigned()).hasSize(110);
    }

    @Test void tryAllocate_noMatch_emptyAndNothingClaimed() throws Exception {
        add(TestPods.pod("p").mem("main", 3).on("n1").placed(INV, 0).build());
        assertThat(manager.tryAllocate(devices(5))).isEmpty();
        assertThat(manager.tryAllocate(devices(3))).get().extracting(r -> r.getEnvsMap().get(AnswerBuilder.ENV_POD)).isEqualTo("default/p");
        assertThat(manager.tryAllocate(devices(3))).isEmpty();
    }

    @Test void peek_doesNotClaim() throws Exception {
        add(TestPods.pod("p").mem("main", 7).on("n1").placed(INV, 1).build());
        assertThat(manager.peek(7)).get().extracting(a -> a.gpuUuids()).isEqualTo(List.of("GPU-bbbb"));
        manager.allocate(devices(7));
        assertThat(manager.peek(7)).isEmpty();
    }
}
