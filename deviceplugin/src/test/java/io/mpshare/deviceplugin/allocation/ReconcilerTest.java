package io.mpshare.deviceplugin.allocation;

import io.mpshare.core.MemoryUnit;
import io.mpshare.core.Names;
import io.mpshare.core.model.Gpu;
import io.mpshare.core.model.NodeInventory;
import io.mpshare.core.model.PodKey;
import io.mpshare.deviceplugin.devices.DeviceIds;
import io.mpshare.deviceplugin.allocation.PodResources.Holding;
import io.mpshare.deviceplugin.api.podresources.v1.ContainerDevices;
import io.mpshare.deviceplugin.api.podresources.v1.ContainerResources;
import io.mpshare.deviceplugin.api.podresources.v1.PodResources;
import io.mpshare.deviceplugin.kubelet.PodResourcesClient;
import io.mpshare.deviceplugin.testkit.RecordingWrites;
import io.mpshare.deviceplugin.testkit.TestPods;
import io.mpshare.kube.node.NodeBookings;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class ReconcilerTest {
    static final NodeInventory INV = new NodeInventory("n1", List.of(
            new Gpu(0, "GPU-aaaa", "NVIDIA H200", 143_771, true),
            new Gpu(1, "GPU-bbbb", "NVIDIA H200", 143_771, true)));
    static final Instant T0 = Instant.parse("2026-11-30T00:00:00Z");

    final RecordingWrites writes = new RecordingWrites();
    final NodeBookings bookings = new NodeBookings("n1", INV, MemoryUnit.GIB, NodeBookings.Refusals.NONE);
    final AllocationBook book = book();
    final AllocationManager manager = new AllocationManager(book, new AnswerBuilder(Path.of(Names.RUN_DIR), false, MemoryUnit.GIB),
            InstantSource.fixed(T0), AllocationManager.ChangeWaiter.NONE, Duration.ZERO, AllocateHooks.NONE);
    final List<Holding> held = new ArrayList<>();
    final Reconciler reconciler = new Reconciler(() -> held, book, writes, InstantSource.fixed(T0), Duration.ofMinutes(10));

    AllocationBook book() {
        var b = new AllocationBook(bookings, MemoryUnit.GIB, INV, () -> "blue", new AnswerLog(), AnswerSink.NONE);
        bookings.addListener(b);
        return b;
    }

    /** The env Allocate answered for these IDs (the test fails on a refusal). */
    Map<String, String> allocate(List<String> ids) {
        if (manager.allocate(ids) instanceof Decision.Answered a) return a.grant().env();
        throw new AssertionError("refused: " + ids);
    }

    static List<String> ids(String gpu, int from, int n) {
        var out = new ArrayList<String>();
        for (int i = 0; i < n; i++) out.add(DeviceIds.id(gpu, from + i));
        return out;
    }

    static Holding holding(String pod, String container, List<String> ids) { return new Holding(PodKey.of("default", pod), container, ids); }

    String uid(String pod) { return book.allocationOf(PodKey.of("default", pod)).orElseThrow().podUid(); }

    @Test void reconcile_crossedTwins_envAnnotationAndPodResourcesAgree() throws Exception {
        bookings.upserted(TestPods.pod("twin-a").mem("main", 7).on("n1").placed(INV, 0).build());
        bookings.upserted(TestPods.pod("twin-b").mem("main", 7).on("n1").placed(INV, 1).build());
        // kubelet admits twin-b first, with IDs of GPU 0; Allocate cannot tell and takes twin-a (arrived first)
        var idsB = ids("GPU-aaaa", 0, 7);
        var idsA = ids("GPU-bbbb", 0, 7);
        var envB = allocate(idsB);
        var envA = allocate(idsA);
        assertThat(envB).containsEntry(Names.ENV_VISIBLE_DEVICES, "GPU-aaaa");   // from the IDs, whoever it was guessed for
        assertThat(envA).containsEntry(Names.ENV_VISIBLE_DEVICES, "GPU-bbbb");
        held.add(holding("twin-b", "main", idsB));
        held.add(holding("twin-a", "main", idsA));

        var r = reconciler.reconcile();
        assertThat(r.corrected()).isEqualTo(2);
        assertThat(r.moved()).isEqualTo(2);
        var b = last("twin-b");
        var a = last("twin-a");
        assertThat(b.get(Names.ANN_ALLOCATION)).contains("gpus=0;uuids=GPU-aaaa");
        assertThat(a.get(Names.ANN_ALLOCATION)).contains("gpus=1;uuids=GPU-bbbb");
        assertThat(b).containsEntry(Names.ANN_ASSIGNED, "true").containsEntry(Names.ACK_GPU_MEM_IDX, "0").doesNotContainKey(Names.ANN_ASSUME_TIME);

        writes.writes.clear();
        assertThat(reconciler.reconcile().any()).isFalse();
        assertThat(writes.writes).isEmpty();
    }

    Map<String, String> last(String pod) {
        return writes.writes.stream().filter(w -> w.pod().name().equals(pod) && w.annotations().containsKey(Names.ANN_ALLOCATION))
                .reduce((x, y) -> y).orElseThrow().annotations();
    }

    @Test void reconcile_oneEntryPerDeviceId_groupedPerContainer() throws Exception {
        bookings.upserted(TestPods.pod("p").mem("main", 3).on("n1").placed(INV, 1).build());
        var d = ids("GPU-bbbb", 0, 3);
        allocate(d);
        // a real kubelet: one ContainerDevices entry per ID
        var pr = PodResources.newBuilder().setName("p").setNamespace("default");
        var cr = ContainerResources.newBuilder().setName("main");
        for (String id : d) cr.addDevices(ContainerDevices.newBuilder().setResourceName(Names.RESOURCE_GPU_MEM).addDeviceIds(id));
        cr.addDevices(ContainerDevices.newBuilder().setResourceName(Names.RESOURCE_GPU_CORE).addDeviceIds("GPU-bbbb-_-0"));
        held.addAll(PodResourcesClient.holdings(List.of(pr.addContainers(cr).build()), Names.RESOURCE_GPU_MEM));
        assertThat(held).singleElement().satisfies(h -> assertThat(h.deviceIds()).containsExactlyElementsOf(d));
        assertThat(reconciler.reconcile().marked()).isEqualTo(1);
        assertThat(writes.assigned()).containsExactly(PodKey.of("default", "p"));
    }

    @Test void reconcile_annotationAlreadyRight_neverRewritten() throws Exception {
        bookings.upserted(TestPods.pod("p").mem("main", 7).on("n1").placed(INV, 1).build());
        var d = ids("GPU-bbbb", 0, 7);
        allocate(d);
        held.add(holding("p", "main", d));
        var r = reconciler.reconcile();
        assertThat(r.corrected()).isZero();
        assertThat(writes.writes).noneSatisfy(w -> assertThat(w.annotations()).containsKey(Names.ANN_ALLOCATION));
    }

    @Test void reconcile_wrongGuess_claimMovesSoTheVictimIsMatchedAgain() throws Exception {
        // a pod whose Allocate we answered in b's name (a's IDs really), then b's own call comes
        bookings.upserted(TestPods.pod("a").mem("main", 7).on("n1").placed(INV, 0).build());
        bookings.upserted(TestPods.pod("b").mem("main", 7).on("n1").placed(INV, 1).build());
        var first = ids("GPU-aaaa", 0, 7);
        assertThat(allocate(first)).containsEntry(AnswerBuilder.ENV_POD, "default/a");
        held.add(holding("b", "main", first));                     // kubelet says: that was b
        assertThat(reconciler.reconcile().moved()).isEqualTo(1);
        assertThat(book.fullyAnswered(uid("a"))).isFalse();
        assertThat(book.fullyAnswered(uid("b"))).isTrue();
        assertThat(allocate(ids("GPU-bbbb", 0, 7))).containsEntry(AnswerBuilder.ENV_POD, "default/a");
    }

    @Test void reconcile_twoContainersOnDifferentGpus_leftAndCounted() throws Exception {
        bookings.upserted(TestPods.pod("two").mem("a", 4).mem("b", 4).on("n1").placed(INV, 0).build());
        var da = ids("GPU-aaaa", 0, 4);
        var db = ids("GPU-bbbb", 0, 4);
        allocate(da);
        allocate(db);
        held.add(holding("two", "a", da));
        held.add(holding("two", "b", db));
        assertThat(reconciler.reconcile().mixed()).isEqualTo(1);
        assertThat(writes.writes).noneSatisfy(w -> assertThat(w.annotations()).containsKey(Names.ANN_ALLOCATION));
    }

    @Test void reconcile_assignedPatchLost_marksAgain() throws Exception {
        bookings.upserted(TestPods.pod("p").mem("main", 7).on("n1").placed(INV, 0).build());
        var d = ids("GPU-aaaa", 0, 7);
        allocate(d);
        held.add(holding("p", "main", d));
        assertThat(reconciler.reconcile().marked()).isEqualTo(1);
        assertThat(writes.assigned()).containsExactly(PodKey.of("default", "p"));
    }

    @Test void reconcile_admittedBeforeARestart_markedAndNeverMatchedAgain() throws Exception {
        // an earlier run answered "old" but its assigned patch was lost; this run never answered it
        bookings.upserted(TestPods.pod("old").mem("main", 7).on("n1").placed(INV, 0).build());
        bookings.upserted(TestPods.pod("new").mem("main", 7).on("n1").placed(INV, 1).build());
        held.add(holding("old", "main", ids("GPU-aaaa", 0, 7)));
        assertThat(reconciler.reconcile().marked()).isEqualTo(1);
        assertThat(writes.assigned()).containsExactly(PodKey.of("default", "old"));
        assertThat(allocate(ids("GPU-bbbb", 0, 7))).containsEntry(AnswerBuilder.ENV_POD, "default/new");
    }

    @Test void reconcile_holderWithoutAllocation_notRewritten() throws Exception {
        held.add(holding("thief", "main", ids("GPU-aaaa", 0, 7)));
        assertThat(reconciler.reconcile().any()).isFalse();
        assertThat(writes.writes).isEmpty();
    }

    @Test void reconcile_answerNotVisibleYet_countedAsWaiting() throws Exception {
        bookings.upserted(TestPods.pod("p").mem("main", 7).on("n1").placed(INV, 0).build());
        allocate(ids("GPU-aaaa", 0, 7));
        assertThat(reconciler.reconcile().waiting()).isEqualTo(1);
    }

    @Test void reconcile_answersOfGoneContainers_pruned() throws Exception {
        bookings.upserted(TestPods.pod("p").mem("main", 7).on("n1").placed(INV, 0).build());
        allocate(ids("GPU-aaaa", 0, 7));
        var later = new Reconciler(() -> held, book, writes, InstantSource.fixed(T0.plus(Duration.ofMinutes(11))), Duration.ofMinutes(10));
        later.reconcile();
        assertThat(book.answerLog().size()).isZero();
    }
}
