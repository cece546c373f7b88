package io.mpshare.kube.node;

import io.fabric8.kubernetes.api.model.Pod;
import io.mpshare.core.MemoryUnit;
import io.mpshare.core.Names;
import io.mpshare.core.ledger.Allocation;
import io.mpshare.core.model.Gpu;
import io.mpshare.core.model.NodeInventory;
import io.mpshare.core.model.PodKey;
import io.mpshare.kube.node.NodePod.Booking;
import io.mpshare.testing.Pods;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The checked view: a booking counts with the demand the pod's own resources ask, never with the numbers in its
 * annotation. The forged annotations are those of the hostile-tenant review (finding F2: {@code kubectl annotate
 * --overwrite} of the charge; F3: an allocation on a pod that asks no GPU).
 */
class NodeBookingsTest {
    static final NodeInventory INV = new NodeInventory("n1", List.of(
            new Gpu(0, "GPU-x", "NVIDIA H200", 143_771, true), new Gpu(1, "GPU-y", "NVIDIA H200", 143_771, true)));
    /** What the extender writes for a pod asking {@code aliyun.com/gpu-mem: 1} (GiB) with the default 1024 MiB reserve. */
    static final String HONEST = "v1;node=n1;gpus=0;uuids=GPU-x;reserve=1024;charge=2048/0;c=main:1024:0";
    /** F2's reproduction: the charge raised to 140000 MiB, the container's share with it. */
    static final String FORGED = "v1;node=n1;gpus=0;uuids=GPU-x;reserve=1024;charge=140000/0;c=main:138976:0";

    final List<String> refused = new ArrayList<>();
    final NodeBookings bookings = new NodeBookings("n1", INV, MemoryUnit.GIB, (pod, why) -> refused.add(pod.name() + ":" + why.label()));
    final List<NodePod> told = new ArrayList<>();
    final AtomicInteger changes = new AtomicInteger();

    {
        bookings.addListener(new NodeBookings.Listener() {
            @Override public void changed(NodePod pod) { told.add(pod); }

            @Override public void bookingsChanged() { changes.incrementAndGet(); }
        });
    }

    static Pod pod(String name, Pods p, String rv) {
        Pod pod = p.build();
        pod.getMetadata().setName(name);
        pod.getMetadata().setUid("uid-" + name);
        pod.getMetadata().setResourceVersion(rv);
        return pod;
    }

    static Pods train(String allocation) { return Pods.pod("train").gpuMem(1).on("n1").annotation(Names.ANN_ALLOCATION, allocation); }

    NodePod last() { return told.getLast(); }

    long charge() { return bookings.bookingOf(PodKey.of("default", "train")).orElseThrow().demand().chargeMib(); }

    /** One pod, first sight: what it may count, and the reason a distrusted annotation is reported under. */
    record Case(String name, Pods pod, Class<? extends Booking> booking, long chargeMib, String reason, String says) {}

    @Test void firstSight_table() {
        List<Case> cases = List.of(
                new Case("honest: counted, demand as derived", train(HONEST), Booking.Booked.class, 2048, null, null),
                new Case("honest with a 512 MiB reserve of its own", train("v1;node=n1;gpus=0;uuids=GPU-x;reserve=512;charge=1536/0;c=main:1024:0"),
                        Booking.Booked.class, 1536, null, null),
                new Case("F2: charge raised to 140000", train(FORGED), Booking.Unplaced.class, 0, "disagrees_with_resources",
                        "books 1 GPU(s), charge 140000 MiB/0% each (main 138976 MiB, reserve 1024 MiB) but its resources ask 1 GPU(s), charge 2048 MiB"),
                new Case("charge alone raised (c= left honest)", train("v1;node=n1;gpus=0;uuids=GPU-x;reserve=1024;charge=140000/0;c=main:1024:0"),
                        Booking.Unplaced.class, 0, "disagrees_with_resources", "charge 140000 MiB"),
                new Case("a second GPU added without the gpu-count label", train("v1;node=n1;gpus=0,1;uuids=GPU-x,GPU-y;reserve=1024;charge=1536/0;c=main:512:0"),
                        Booking.Unplaced.class, 0, "disagrees_with_resources", "books 2 GPU(s)"),
                new Case("core share raised", train("v1;node=n1;gpus=0;uuids=GPU-x;reserve=1024;charge=2048/100;c=main:1024:100"),
                        Booking.Unplaced.class, 0, "disagrees_with_resources", "2048 MiB/100%"),
                new Case("the reserve raised with the charge to match", train("v1;node=n1;gpus=0;uuids=GPU-x;reserve=100000;charge=101024/0;c=main:1024:0"),
                        Booking.Unplaced.class, 0, "reserve_out_of_bounds", "context reserve of 100000 MiB, outside 256-8192"),
                new Case("F3: a pod that asks no GPU", Pods.pod("squat").on("n1").annotation(Names.ANN_ALLOCATION, HONEST), Booking.None.class, 0,
                        "asks_no_gpu_mem", null),
                new Case("booked for another node", train(HONEST.replace("node=n1", "node=n2")), Booking.Unplaced.class, 0, "malformed",
                        "names node n2 but the pod is bound to n1"),
                new Case("unreadable", train("v1;node=n1;gpus=x"), Booking.Unplaced.class, 0, "malformed", "cannot be read"),
                new Case("no allocation: not placed by the extender, nothing to distrust", Pods.pod("preset").gpuMem(7).on("n1"),
                        Booking.Unplaced.class, 0, null, "carries no mpshare.io/allocation"),
                new Case("a pod without GPU and without annotation", Pods.pod("plain").on("n1"), Booking.None.class, 0, null, null),
                new Case("ACK-placed, pod total as asked: no reserve", Pods.pod("ack").gpuMem(2).on("n1")
                        .annotations(Map.of(Names.ACK_GPU_MEM_IDX, "1", Names.ACK_GPU_MEM_POD, "2")), Booking.Booked.class, 2048, null, null),
                new Case("ACK-placed, pod total raised", Pods.pod("ack").gpuMem(2).on("n1")
                        .annotations(Map.of(Names.ACK_GPU_MEM_IDX, "1", Names.ACK_GPU_MEM_POD, "130")), Booking.Unplaced.class, 0,
                        "disagrees_with_resources", Names.ACK_GPU_MEM_POD));
        for (Case c : cases) {
            refused.clear();
            var b = new NodeBookings("n1", INV, MemoryUnit.GIB, (pod, why) -> refused.add(why.label()));
            var seen = new ArrayList<NodePod>();
            b.addListener(new NodeBookings.Listener() {
                @Override public void changed(NodePod pod) { seen.add(pod); }
            });
            Pod p = c.pod().uid("uid-" + c.name().hashCode()).build();
            b.upserted(p);
            Booking got = seen.getLast().booking();
            assertThat(got).as(c.name()).isInstanceOf(c.booking());
            if (got instanceof Booking.Booked k) {
                assertThat(k.allocation().demand().chargeMib()).as(c.name()).isEqualTo(c.chargeMib());
                assertThat(b.booked()).as(c.name()).containsExactly(k.allocation());
            } else {
                assertThat(b.booked()).as(c.name() + ": nothing counted").isEmpty();
            }
            if (got instanceof Booking.Unplaced u && c.says() != null) assertThat(u.reason()).as(c.name()).contains(c.says());
            assertThat(refused).as(c.name()).isEqualTo(c.reason() == null ? List.of() : List.of(c.reason()));
        }
    }

    @Test void forgedAfterHonest_theBookingLastCheckedStays_reportedOnce() {
        bookings.upserted(pod("train", train(HONEST), "10"));
        assertThat(charge()).isEqualTo(2048);
        assertThat(changes.get()).isEqualTo(1);
        bookings.upserted(pod("train", train(FORGED), "11"));
        assertThat(charge()).as("the forged charge is not counted").isEqualTo(2048);
        assertThat(last().booking()).isInstanceOfSatisfying(Booking.Booked.class, b -> assertThat(b.allocation().demand().chargeMib()).isEqualTo(2048));
        assertThat(changes.get()).as("the counted set did not change").isEqualTo(1);
        bookings.upserted(pod("train", train(FORGED), "12"));   // the informer's resync: the same annotation again
        assertThat(refused).containsExactly("train:disagrees_with_resources");
        bookings.upserted(pod("train", train(HONEST), "13"));
        bookings.upserted(pod("train", train(FORGED), "14"));
        assertThat(refused).as("forged again after an honest one: reported again").hasSize(2);
    }

    @Test void gpusFromTheAnnotation_demandFromTheResources() {
        bookings.upserted(pod("train", train(HONEST.replace("gpus=0;uuids=GPU-x", "gpus=1;uuids=GPU-y")), "10"));
        Allocation a = bookings.booked().getFirst();
        assertThat(a.gpuIndices()).as("the GPU set is the annotation's (the reconciler checks it against pod-resources)").containsExactly(1);
        assertThat(a.demand().containers()).singleElement().satisfies(c -> assertThat(c.memMibPerGpu()).isEqualTo(1024));
    }

    @Test void olderVersion_ignored_soADirectReadAndTheWatchMayCrossInEitherOrder() {
        bookings.upserted(pod("train", train(HONEST.replace("gpus=0;uuids=GPU-x", "gpus=1;uuids=GPU-y")), "20"));
        bookings.upserted(pod("train", train(HONEST), "19"));
        assertThat(bookings.booked().getFirst().gpuIndices()).containsExactly(1);
    }

    @Test void corrected_countsAtOnce_andTellsTheListeners() {
        bookings.upserted(pod("train", train(HONEST), "10"));
        Allocation a = bookings.booked().getFirst();
        Allocation moved = new Allocation(a.pod(), a.podUid(), "n1", List.of(1), List.of("GPU-y"), a.demand(), a.assumedAt(), a.phase());
        bookings.corrected(moved);
        assertThat(bookings.bookingOf(PodKey.of("default", "train"))).contains(moved);
        assertThat(last().booking()).isEqualTo(new Booking.Booked(moved));
        assertThat(changes.get()).isEqualTo(2);
    }

    @Test void finishedOrDeleted_notCounted_terminatingStillCounts() {
        bookings.upserted(pod("train", train(HONEST), "10"));
        Pod terminating = pod("train", train(HONEST), "11");
        terminating.getMetadata().setDeletionTimestamp("2026-12-01T00:00:00Z");
        bookings.upserted(terminating);
        assertThat(bookings.booked()).as("its containers may still run").hasSize(1);
        assertThat(last().deleting()).isTrue();
        Pod done = pod("train", train(HONEST).phase("Succeeded"), "12");
        bookings.upserted(done);
        assertThat(bookings.booked()).isEmpty();
        assertThat(last().finished()).isTrue();
        bookings.upserted(pod("train", train(HONEST), "13"));
        bookings.deleted(pod("train", train(HONEST), "14"));
        assertThat(bookings.booked()).isEmpty();
        assertThat(bookings.bookingOf(PodKey.of("default", "train"))).isEmpty();
        assertThat(bookings.size()).isZero();
    }
}
