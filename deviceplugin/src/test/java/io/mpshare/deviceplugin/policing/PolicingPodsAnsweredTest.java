package io.mpshare.deviceplugin.policing;

import io.mpshare.core.MemoryUnit;
import io.mpshare.core.ledger.Allocation;
import io.mpshare.core.model.NodeInventory;
import io.mpshare.deviceplugin.cluster.InventoryPublisher;
import io.mpshare.deviceplugin.testkit.TestPods;
import io.mpshare.kube.node.NodeBookings;
import io.mpshare.nvml.fake.FakeNvml;
import io.mpshare.policing.proc.ContainerIndex;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The policer judges a pod by what Allocate answered until the reconciler's corrected annotation comes back. */
class PolicingPodsAnsweredTest {
    static final String UID = "uid-twin";
    final NodeInventory inv = InventoryPublisher.readHardware(new FakeNvml().addH200().addH200(), "n1");
    final NodeBookings bookings = new NodeBookings("n1", inv, MemoryUnit.GIB, NodeBookings.Refusals.NONE);
    final PolicingPods feed = feed();
    final PolicingPods view = feed;

    PolicingPods feed() {
        var f = new PolicingPods(bookings, new ContainerIndex(), new PodIndex(), uid -> { });
        bookings.addListener(f);
        return f;
    }

    List<Integer> gpusInView() {
        var out = new ArrayList<Integer>();
        for (Allocation a : view.allocations()) if (a.podUid().equals(UID)) out.addAll(a.gpuIndices());
        return out;
    }

    @Test void answered_otherGpuThanAnnotated_viewFollowsTheAnswerUntilTheAnnotationAgrees() {
        var booked = TestPods.pod("twin").uid(UID).mem("main", 7).on("n1").placed(inv, 1).build();
        bookings.upserted(booked);
        assertThat(gpusInView()).containsExactly(1);
        Allocation asAnswered = view.allocations().getFirst();
        asAnswered = new Allocation(asAnswered.pod(), UID, "n1", List.of(0), List.of(inv.gpu(0).uuid()), asAnswered.demand(),
                asAnswered.assumedAt(), asAnswered.phase());
        feed.answered(asAnswered);
        assertThat(gpusInView()).containsExactly(0);
        bookings.upserted(booked);                                     // an informer event with the stale annotation
        assertThat(gpusInView()).as("the stale annotation does not win").containsExactly(0);
        bookings.upserted(TestPods.pod("twin").uid(UID).mem("main", 7).on("n1").placed(inv, 0).build());   // the correction comes back
        assertThat(gpusInView()).containsExactly(0);
        bookings.upserted(TestPods.pod("twin").uid(UID).mem("main", 7).on("n1").placed(inv, 0).build());
        assertThat(gpusInView()).containsExactly(0);
    }

    @Test void cleared_answerMatchesBookingAgain_viewBackToTheAnnotation() {
        bookings.upserted(TestPods.pod("twin").uid(UID).mem("main", 7).on("n1").placed(inv, 1).build());
        Allocation a = view.allocations().getFirst();
        feed.answered(new Allocation(a.pod(), UID, "n1", List.of(0), List.of(inv.gpu(0).uuid()), a.demand(), a.assumedAt(), a.phase()));
        feed.cleared(UID);
        assertThat(gpusInView()).containsExactly(1);
    }
}
