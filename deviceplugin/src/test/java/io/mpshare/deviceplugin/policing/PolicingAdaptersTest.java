package io.mpshare.deviceplugin.policing;

import io.fabric8.kubernetes.api.model.ContainerStatusBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.mpshare.core.MemoryUnit;
import io.mpshare.core.Names;
import io.mpshare.core.model.NodeInventory;
import io.mpshare.core.model.PodKey;
import io.mpshare.deviceplugin.cluster.InventoryPublisher;
import io.mpshare.deviceplugin.cluster.KubeEvents;
import io.mpshare.deviceplugin.testkit.TestPods;
import io.mpshare.kube.node.NodeBookings;
import io.mpshare.mps.MpsControl;
import io.mpshare.mps.fake.FakeMpsControl;
import io.mpshare.nvml.fake.FakeNvml;
import io.mpshare.policing.PolicerEvent;
import io.mpshare.policing.proc.ContainerIndex;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

/** The device plugin's policing adapters without an API server: informer feed, Event shape, daemons per colour, usage. */
class PolicingAdaptersTest {
    static final String UID = "11111111-2222-3333-4444-555555555555";
    static final String CID = "c".repeat(64);
    final NodeInventory inv = InventoryPublisher.readHardware(new FakeNvml().addH200().addH200(), "n1");
    final ContainerIndex containers = new ContainerIndex();
    final PodIndex pods = new PodIndex();
    final List<String> ended = new ArrayList<>();
    final NodeBookings bookings = new NodeBookings("n1", inv, MemoryUnit.GIB, NodeBookings.Refusals.NONE);
    final PolicingPods feed = feed();
    final PolicingPods view = feed;

    PolicingPods feed() {
        var f = new PolicingPods(bookings, containers, pods, ended::add);
        bookings.addListener(f);
        return f;
    }

    Pod pod() {
        Pod p = TestPods.pod("train").uid(UID).mem("main", 7).on("n1").placed(inv, 1).build();
        p.getStatus().setPhase("Running");
        p.getStatus().setContainerStatuses(List.of(new ContainerStatusBuilder().withName("main").withContainerID("containerd://" + CID).build()));
        return p;
    }

    @Test void upsert_putsTheAllocationContainerAndName() {
        bookings.upserted(pod());
        assertThat(view.allocations()).singleElement().satisfies(a -> {
            assertThat(a.podUid()).isEqualTo(UID);
            assertThat(a.gpuIndices()).containsExactly(1);
        });
        assertThat(containers.nameOf(UID, CID)).contains("main");
        assertThat(pods.get(UID)).contains(PodKey.of("default", "train"));
        assertThat(ended).isEmpty();
    }

    @Test void finishedOrDeletedPods_leaveTheView() {
        bookings.upserted(pod());
        Pod done = pod();
        done.getStatus().setPhase("Succeeded");
        bookings.upserted(done);
        assertThat(view.allocations()).isEmpty();
        bookings.upserted(pod());
        bookings.deleted(pod());
        assertThat(view.allocations()).isEmpty();
        assertThat(containers.nameOf(UID, CID)).isEmpty();
        assertThat(pods.get(UID)).isEmpty();
    }

    @Test void podWithoutAllocation_isNotInTheView() {
        Pod p = TestPods.pod("plain").uid(UID).plain("main").on("n1").build();
        bookings.upserted(p);
        assertThat(view.allocations()).isEmpty();
        assertThat(pods.get(UID)).isPresent();   // still named in events about it (a rogue process)
    }

    /** F2 of the hostile-tenant review: after a rewritten charge the policer stopped flagging a 98 GiB client. */
    @Test void forgedCharge_allowanceUnchanged() {
        Pod honest = pod();
        bookings.upserted(honest);
        long charge = view.allocations().getFirst().demand().chargeMib();
        assertThat(charge).isEqualTo(7168 + Names.DEFAULT_CONTEXT_RESERVE_MIB);
        bookings.upserted(TestPods.forged(honest, 140_000, 138_976));
        assertThat(view.allocations()).singleElement().satisfies(a -> {
            assertThat(a.demand().chargeMib()).as("judged by its resources, not by the annotation").isEqualTo(charge);
            assertThat(a.gpuIndices()).containsExactly(1);
        });
    }

    @Test void deletionTimestamp_endsThePodOnce() {
        Pod p = pod();
        p.getMetadata().setDeletionTimestamp("2026-11-30T05:00:00Z");
        bookings.upserted(p);
        bookings.upserted(p);
        assertThat(ended).containsExactly(UID);
    }

    @Test void events_onThePod_warningExceptPodEnded_onTheNodeWhenNoPod() {
        var sink = new KubeEventSink(new KubeEvents(null, "n1", Runnable::run), pods);
        pods.put(UID, PodKey.of("ml", "train"));
        Instant at = Instant.parse("2026-11-30T05:00:00Z");
        var over = sink.toEvent(new PolicerEvent(at, PolicerEvent.Kind.OVER_LIMIT, UID, Optional.empty(), 0, 101, "main", "over by 12 GiB"));
        assertThat(over.getType()).isEqualTo("Warning");
        assertThat(over.getReason()).isEqualTo("GpuMemoryOverLimit");
        assertThat(over.getMetadata().getNamespace()).isEqualTo("ml");
        assertThat(over.getInvolvedObject().getKind()).isEqualTo("Pod");
        assertThat(over.getInvolvedObject().getUid()).isEqualTo(UID);
        assertThat(over.getInvolvedObject().getFieldPath()).isEqualTo("spec.containers{main}");
        assertThat(over.getSource().getHost()).isEqualTo("n1");
        var endedEv = sink.toEvent(new PolicerEvent(at, PolicerEvent.Kind.POD_ENDED, UID, Optional.empty(), 0, 101, "", "ended"));
        assertThat(endedEv.getType()).isEqualTo("Normal");
        assertThat(endedEv.getMetadata().getName()).isNotEqualTo(over.getMetadata().getName());
        var unknown = sink.toEvent(new PolicerEvent(at, PolicerEvent.Kind.UNKNOWN_PROCESS, "", Optional.empty(), 0, 900, "", "pid 900"));
        assertThat(unknown.getInvolvedObject().getKind()).isEqualTo("Node");
        assertThat(unknown.getInvolvedObject().getName()).isEqualTo("n1");
        assertThat(unknown.getMetadata().getNamespace()).isEqualTo("default");
        assertThat(sink.toEvent(new PolicerEvent(at, PolicerEvent.Kind.OVER_LIMIT, "gone", Optional.empty(), 0, 1, "", "x"))).isNull();
    }

    @Test void daemons_activeColourFirst_missingColoursLeftOut() {
        MpsControl blue = new FakeMpsControl(), green = new FakeMpsControl();
        var colour = new String[]{"blue"};
        var d = new ColourDaemons(() -> colour[0], c -> switch (c) { case "blue" -> blue; case "green" -> green; default -> null; });
        assertThat(d.daemons()).containsExactly(blue, green);
        colour[0] = "green";
        assertThat(d.daemons()).containsExactly(green, blue);
        var onlyBlue = new ColourDaemons(() -> "green", c -> "blue".equals(c) ? blue : null);
        assertThat(onlyBlue.daemons()).containsExactly(blue);
    }

    @Test void processControls_onlyWhereThePipeFolderExists(@org.junit.jupiter.api.io.TempDir java.nio.file.Path run) throws Exception {
        var controls = ColourDaemons.processControls(run, Optional.empty());
        assertThat(controls.apply("blue")).isNull();
    }

    @Test void usage_isAMergePatchOfTheAnnotation_forKnownPods() {
        Map<PodKey, Map<String, String>> patches = new java.util.LinkedHashMap<>();
        var writes = new io.mpshare.deviceplugin.cluster.PodWrites() {
            @Override public void markAssigned(PodKey pod) { }

            @Override public void patch(PodKey pod, Map<String, String> annotations) { patches.put(pod, annotations); }
        };
        pods.put(UID, PodKey.of("ml", "train"));
        var u = new io.mpshare.core.codec.UsageCodec.PodUsage(Instant.parse("2026-11-30T05:00:00Z"),
                List.of(new io.mpshare.core.codec.UsageCodec.GpuUsage(0, 7680, 6000, 1)), List.of());
        var sink = UsageAnnotations.changedOnly(writes, pods);
        sink.publish(Map.of(UID, u, "unknown-uid", u));
        assertThat(patches).containsOnlyKeys(PodKey.of("ml", "train"));
        assertThat(io.mpshare.core.codec.UsageCodec.decode(patches.get(PodKey.of("ml", "train")).get(Names.ANN_USAGE)).usedMib()).isEqualTo(6000);
        patches.clear();
        sink.publish(Map.of(UID, u));   // unchanged: no write
        assertThat(patches).isEmpty();
    }
}
