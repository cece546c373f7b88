package io.mpshare.core.ledger;

import io.mpshare.core.MutableClock;
import io.mpshare.core.model.Gpu;
import io.mpshare.core.model.GpuDemand;
import io.mpshare.core.model.NodeInventory;
import io.mpshare.core.policy.BinpackPolicy;
import io.mpshare.core.policy.PlacementPolicy;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.function.Predicate;
import java.util.stream.Stream;

import static io.mpshare.core.CoreFixtures.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.params.provider.Arguments.argumentSet;

class LedgerTest {
    private static final PlacementPolicy BINPACK = new BinpackPolicy();

    private final MutableClock clock = new MutableClock(T0);
    private final Ledger ledger = ledger(clock, h200s("n1", 2), h200s("n2", 2));

    @Test
    void assume_fits_booksAssumedAndChargesWithReserve() {
        var r = ledger.assume(key("a"), "uid-a", "n1", gib(7), BINPACK);

        assertThat(r).isInstanceOf(AssumeResult.Assumed.class);
        Allocation a = ((AssumeResult.Assumed) r).allocation();
        assertThat(a.phase()).isEqualTo(Phase.ASSUMED);
        assertThat(a.gpuIndices()).containsExactly(0);
        assertThat(a.gpuUuids()).containsExactly("GPU-n1-0");
        assertThat(a.assumedAt()).isEqualTo(T0);
        assertThat(ledger.node("n1").allocatedMib(0)).isEqualTo(7168 + 512);
        assertThat(ledger.allocation(key("a"))).contains(a);
    }

    /** The ledger books what its chooser answers, whatever the chooser is: the GPU it names, or its reason as the refusal. */
    @Test
    void assume_anyChooser_booksItsGpusOrRefusesWithItsReason() {
        var second = ledger.assume(key("a"), "uid-a", "n1", gib(7), (node, demand) -> new GpuChooser.Choice.Chosen(new int[] {1}));
        var refused = ledger.assume(key("b"), "uid-b", "n2", gib(7), (node, demand) -> new GpuChooser.Choice.Refused("not today"));

        assertThat(((AssumeResult.Assumed) second).allocation().gpuIndices()).containsExactly(1);
        assertThat(refused).isEqualTo(new AssumeResult.Rejected("not today"));
        assertThat(ledger.node("n2").allocatedMib()).isZero();
    }

    /**
     * The informer's copy of a booking (BOUND) replacing the bind's own (ASSUMED) on the same GPU never shows that GPU
     * free in between: a concurrent assume that looked then booked the room twice (seen under the real kube-scheduler).
     * Whatever can look between two steps is told through the room listener, on the restoring thread.
     */
    @Test
    void restore_samePlacementAgain_roomNeverSeenFree() {
        var a = ((AssumeResult.Assumed) ledger.assume(key("a"), "uid-a", "n1", gib(90), BINPACK)).allocation();
        List<Long> seen = new ArrayList<>();
        ledger.onRoomGrew(node -> seen.add(ledger.node("n1").allocatedMib(0)));

        ledger.restore(a.withPhase(Phase.BOUND));

        assertThat(seen).allSatisfy(mib -> assertThat(mib).as("GPU 0 booked while the restore ran").isEqualTo(a.demand().chargeMib()));
        assertThat(ledger.node("n1").allocatedMib(0)).isEqualTo(a.demand().chargeMib());
        var other = ledger.assume(key("b"), "uid-b", "n1", gib(90), (node, demand) -> new GpuChooser.Choice.Chosen(new int[] {0}));
        assertThat(other).isInstanceOf(AssumeResult.Rejected.class);
    }

    /** Whatever a chooser answers, the ledger books no GPU past its size, twice in one pod, or unhealthy. */
    @Test
    void assume_chooserPicksAFullGpu_refusedAndNothingBooked() {
        for (int i = 0; i < 18; i++) ledger.assume(key("f" + i), "uid-f" + i, "n1", gib(7), (node, demand) -> new GpuChooser.Choice.Chosen(new int[] {0}));
        long before = ledger.node("n1").allocatedMib(0); // 18 × 7,680 MiB of 143,771: a 19th does not fit
        assertThat(before).isLessThanOrEqualTo(ledger.node("n1").totalMib(0));

        var over = ledger.assume(key("over"), "uid-over", "n1", gib(7), (node, demand) -> new GpuChooser.Choice.Chosen(new int[] {0}));
        var twice = ledger.assume(key("twice"), "uid-twice", "n2", demand(14 * 1024, 0, 2), (node, demand) -> new GpuChooser.Choice.Chosen(new int[] {1, 1}));

        assertThat(over).isInstanceOf(AssumeResult.Rejected.class);
        assertThat(((AssumeResult.Rejected) over).reason()).contains("GPU 0 of node n1").contains("refused");
        assertThat(twice).isInstanceOf(AssumeResult.Rejected.class);
        assertThat(ledger.node("n1").allocatedMib(0)).isEqualTo(before);
        assertThat(ledger.node("n2").allocatedMib()).isZero();
        assertThat(ledger.allocation(key("over"))).isEmpty();
    }

    @Test
    void assume_sameDemandTwice_alreadyPlacedAndChargedOnce() {
        ledger.assume(key("a"), "uid-a", "n1", gib(7), BINPACK);
        var again = ledger.assume(key("a"), "uid-a", "n1", gib(7), BINPACK);

        assertThat(again).isInstanceOf(AssumeResult.AlreadyPlaced.class);
        assertThat(ledger.node("n1").allocatedMib()).isEqualTo(7680);
    }

    @Test
    void assume_assumedOnOtherNode_movesBooking() {
        ledger.assume(key("a"), "uid-a", "n1", gib(7), BINPACK);
        var moved = ledger.assume(key("a"), "uid-a", "n2", gib(7), BINPACK);

        assertThat(moved).isInstanceOf(AssumeResult.Assumed.class);
        assertThat(ledger.node("n1").allocatedMib()).isZero();
        assertThat(ledger.node("n2").allocatedMib()).isEqualTo(7680);
        assertThat(ledger.allocation(key("a")).orElseThrow().node()).isEqualTo("n2");
    }

    @Test
    void assume_moveToNodeWithoutRoom_keepsOldBooking() { // regression: a refused move used to drop the booking
        ledger.assume(key("a"), "uid-a", "n1", gib(7), BINPACK);
        var refused = ledger.assume(key("a"), "uid-a", "n2", gib(200), BINPACK);

        assertThat(refused).isInstanceOf(AssumeResult.Rejected.class);
        assertThat(ledger.allocation(key("a")).orElseThrow().node()).isEqualTo("n1");
        assertThat(ledger.node("n1").allocatedMib()).isEqualTo(7680);
    }

    @Test
    void assume_moveToUnknownNode_keepsOldBooking() {
        ledger.assume(key("a"), "uid-a", "n1", gib(7), BINPACK);
        var refused = ledger.assume(key("a"), "uid-a", "nowhere", gib(7), BINPACK);

        assertThat(((AssumeResult.Rejected) refused).reason()).contains("nowhere", "not known to mpshare");
        assertThat(ledger.node("n1").allocatedMib()).isEqualTo(7680);
    }

    @Test
    void assume_sameNodeLargerDemand_reevaluatedWithoutItsOwnBooking() {
        var small = ledger(h200s("solo", 1));
        small.assume(key("a"), "", "solo", gib(100), BINPACK);
        var bigger = small.assume(key("a"), "", "solo", gib(130), BINPACK);

        assertThat(bigger).isInstanceOf(AssumeResult.Assumed.class);
        assertThat(small.node("solo").allocatedMib(0)).isEqualTo(130 * 1024 + 512);
    }

    @Test
    void assume_boundElsewhere_refusedAndUnchanged() {
        ledger.assume(key("a"), "uid-a", "n1", gib(7), BINPACK);
        ledger.confirmBound(key("a"), "n1");
        var r = ledger.assume(key("a"), "uid-a", "n2", gib(7), BINPACK);

        assertThat(((AssumeResult.Rejected) r).reason()).contains("already bound to node n1");
        assertThat(ledger.node("n2").allocatedMib()).isZero();
        assertThat(ledger.allocation(key("a")).orElseThrow().phase()).isEqualTo(Phase.BOUND);
    }

    @Test
    void assume_sameNameNewUid_replacesStaleBoundBooking() { // regression: a recreated StatefulSet pod was refused
        ledger.assume(key("web-0"), "uid-old", "n1", gib(7), BINPACK);
        ledger.confirmBound(key("web-0"), "n1");
        var r = ledger.assume(key("web-0"), "uid-new", "n2", gib(7), BINPACK);

        assertThat(r).isInstanceOf(AssumeResult.Assumed.class);
        assertThat(ledger.node("n1").allocatedMib()).isZero();
        assertThat(ledger.allocation(key("web-0")).orElseThrow().podUid()).isEqualTo("uid-new");
    }

    @Test
    void assume_noRoom_rejectedWithPolicyReason() {
        var r = ledger.assume(key("a"), "", "n1", gib(141), BINPACK);

        assertThat(((AssumeResult.Rejected) r).reason()).contains("141.5 GiB");
        assertThat(ledger.allocation(key("a"))).isEmpty();
    }

    @Test
    void confirmAndAssign_repeated_idempotentAndNeverBackwards() {
        ledger.assume(key("a"), "", "n1", gib(7), BINPACK);
        assertThat(ledger.confirmBound(key("a"), "n1")).isTrue();
        assertThat(ledger.confirmBound(key("a"), "n1")).isTrue();
        assertThat(ledger.markAssigned(key("a"), "n1")).isTrue();
        assertThat(ledger.markAssigned(key("a"), "n1")).isTrue();
        assertThat(ledger.confirmBound(key("a"), "n1")).isTrue();

        assertThat(ledger.allocation(key("a")).orElseThrow().phase()).isEqualTo(Phase.ASSIGNED);
        assertThat(ledger.node("n1").pods().get(key("a")).phase()).isEqualTo(Phase.ASSIGNED);
        assertThat(ledger.node("n1").allocatedMib()).isEqualTo(7680);
    }

    @Test
    void confirmBound_otherNodeOrUnknownPod_false() {
        ledger.assume(key("a"), "", "n1", gib(7), BINPACK);
        assertThat(ledger.confirmBound(key("a"), "n2")).isFalse();
        assertThat(ledger.markAssigned(key("ghost"), "n1")).isFalse();
        assertThat(ledger.allocation(key("a")).orElseThrow().phase()).isEqualTo(Phase.ASSUMED);
    }

    @Test
    void release_twice_freesOnceThenEmpty() {
        ledger.assume(key("a"), "", "n1", gib(7), BINPACK);
        assertThat(ledger.release(key("a"))).isPresent();
        assertThat(ledger.release(key("a"))).isEmpty();
        assertThat(ledger.node("n1").allocatedMib()).isZero();
        assertThat(ledger.node("n1").pods()).isEmpty();
        assertThat(ledger.allocations()).isEmpty();
    }

    /** age of the ASSUMED entry, phase, whether the caller still wants it → released? */
    static Stream<Arguments> expiry() {
        return Stream.of(
                argumentSet("younger than TTL, unwanted: kept", Duration.ofMinutes(4), Phase.ASSUMED, false, false),
                argumentSet("exactly the TTL, unwanted: kept", Duration.ofMinutes(5), Phase.ASSUMED, false, false),
                argumentSet("older than TTL, still wanted: kept", Duration.ofMinutes(6), Phase.ASSUMED, true, false),
                argumentSet("older than TTL, unwanted: released", Duration.ofMinutes(6), Phase.ASSUMED, false, true),
                argumentSet("bound never expires", Duration.ofHours(6), Phase.BOUND, false, false),
                argumentSet("assigned never expires", Duration.ofHours(6), Phase.ASSIGNED, false, false));
    }

    @ParameterizedTest
    @MethodSource("expiry")
    void expireAssumed_byAgePhaseAndWish(Duration age, Phase phase, boolean wanted, boolean released) {
        ledger.assume(key("a"), "", "n1", gib(7), BINPACK);
        if (phase.compareTo(Phase.BOUND) >= 0) ledger.confirmBound(key("a"), "n1");
        if (phase == Phase.ASSIGNED) ledger.markAssigned(key("a"), "n1");
        clock.advance(age);
        Predicate<Allocation> stillWanted = a -> wanted;

        var expired = ledger.expireAssumed(stillWanted);

        assertThat(expired).hasSize(released ? 1 : 0);
        assertThat(ledger.allocation(key("a")).isPresent()).isEqualTo(!released);
        assertThat(ledger.node("n1").allocatedMib()).isEqualTo(released ? 0 : 7680);
    }

    @Test
    void expireAssumed_onlyAsksAboutOldAssumedEntries() {
        ledger.assume(key("old"), "", "n1", gib(7), BINPACK);
        clock.advance(Duration.ofMinutes(10));
        ledger.assume(key("new"), "", "n1", gib(7), BINPACK);
        var asked = new java.util.ArrayList<String>();

        ledger.expireAssumed(a -> { asked.add(a.pod().name()); return true; });

        assertThat(asked).containsExactly("old");
    }

    @Test
    void upsertNode_changedInventory_keepsBookings() {
        ledger.assume(key("a"), "", "n1", gib(7), BINPACK);
        var sick = new NodeInventory("n1", List.of(
                new Gpu(0, "GPU-n1-0", "NVIDIA H200", H200_MIB, false), new Gpu(1, "GPU-n1-1", "NVIDIA H200", H200_MIB, true)));

        ledger.upsertNode(sick);

        assertThat(ledger.node("n1").allocatedMib(0)).isEqualTo(7680);
        assertThat(ledger.node("n1").usable(0)).isFalse();
        assertThat(ledger.node("n1").pods()).containsKey(key("a"));
    }

    @Test
    void upsertNode_afterRemoveNode_recoversBookingsFromPodIndex() {
        ledger.assume(key("a"), "", "n1", gib(7), BINPACK);
        ledger.removeNode("n1");
        assertThat(ledger.accounting()).doesNotContainKey("n1");

        ledger.upsertNode(h200s("n1", 2));

        assertThat(ledger.node("n1").allocatedMib(0)).isEqualTo(7680);
    }

    @Test
    void restore_beforeNodeKnown_chargedWhenNodeArrives() {
        var l = ledger();
        occupy(l, "late", 1, 4096, "a");
        assertThat(l.node("late")).isNull();

        l.upsertNode(node("late", 81920, 81920));

        assertThat(l.accounting()).isEqualTo(Map.of("late", Map.of(0, 0L, 1, 4096L)));
    }

    @Test
    void assume_heterogeneousGpus_eachGpuOwnSize() {
        var l = ledger(node("mixed", 24_576, 81_920, 143_771));

        var mid = l.assume(key("mid"), "", "mixed", gib(30), BINPACK);
        var small = l.assume(key("small"), "", "mixed", gib(20), BINPACK);
        var huge = l.assume(key("huge"), "", "mixed", gib(141), BINPACK);

        assertThat(((AssumeResult.Assumed) mid).allocation().gpuIndices()).containsExactly(1);
        assertThat(((AssumeResult.Assumed) small).allocation().gpuIndices()).containsExactly(0);
        assertThat(((AssumeResult.Rejected) huge).reason()).contains("the largest has 140 GiB, pod needs 141.5 GiB");
        assertThat(l.accounting().get("mixed")).isEqualTo(Map.of(0, 20L * 1024 + 512, 1, 30L * 1024 + 512, 2, 0L));
    }

    @Test
    void upsertNode_gpuShrinks_freeMayGoNegativeButAssumeRefuses() {
        var l = ledger(node("n", 81_920));
        l.assume(key("a"), "", "n", gib(70), BINPACK);

        l.upsertNode(node("n", 40_960));

        assertThat(l.node("n").freeMib(0)).isNegative();
        assertThat(l.assume(key("b"), "", "n", gib(1), BINPACK)).isInstanceOf(AssumeResult.Rejected.class);
    }
    /** The room listener hears every change that may let a pod in (a release, a node added, a GPU healthy again), and only those. */
    @Test
    void onRoomGrew_releaseNodeAddedGpuHealthy_heard_bookingNotHeard() {
        List<String> heard = new ArrayList<>();
        ledger.onRoomGrew(heard::add);
        ledger.assume(key("a"), "", "n1", gib(7), BINPACK);
        ledger.confirmBound(key("a"), "n1");
        assertThat(heard).as("a booking takes room").isEmpty();

        ledger.release(key("a"));
        ledger.upsertNode(h200s("n3", 1));
        var sick = new NodeInventory("n2", List.of(
                new Gpu(0, "GPU-n2-0", "NVIDIA H200", H200_MIB, false), new Gpu(1, "GPU-n2-1", "NVIDIA H200", H200_MIB, true)));
        ledger.upsertNode(sick);
        ledger.upsertNode(h200s("n2", 2));
        ledger.upsertNode(h200s("n2", 2));

        assertThat(heard).containsExactly("n1", "n3", "n2", "n2");
    }

    /** Sums are exact: bookings whose charges would wrap a long fail loudly instead of showing room that is not there. */
    @Test
    void restore_chargesThatWouldWrap_refusedNotWrapped() {
        var l = ledger(node("n", 81_920));
        var huge = new GpuDemand(1, Long.MAX_VALUE, 0, 0, Long.MAX_VALUE, List.of(), OptionalLong.empty());
        l.restore(new Allocation(key("a"), "", "n", List.of(0), List.of("GPU-n-0"), huge, T0, Phase.BOUND));

        assertThatThrownBy(() -> l.restore(new Allocation(key("b"), "", "n", List.of(0), List.of("GPU-n-0"), huge, T0, Phase.BOUND)))
                .isInstanceOf(ArithmeticException.class);
        assertThat(l.node("n").allocatedMib(0)).isEqualTo(Long.MAX_VALUE);
    }
}
