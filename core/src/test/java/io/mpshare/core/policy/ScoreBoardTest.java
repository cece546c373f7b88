package io.mpshare.core.policy;

import io.mpshare.core.ledger.AssumeResult;
import io.mpshare.core.ledger.Ledger;
import io.mpshare.core.ledger.NodeState;
import io.mpshare.core.model.GpuDemand;
import io.mpshare.core.model.PodKey;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import static io.mpshare.core.CoreFixtures.*;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Prioritize (and the filter's shortlist, which scores through it) gives back a node's remembered score while the
 * node's version in the ledger's index stays, and scores again exactly the nodes that changed: a booking, a release,
 * a {@code touch}. The answers always equal those of an engine that remembers nothing.
 */
class ScoreBoardTest {
    private static final long G = 1024;
    private static final List<String> NODES = List.of("a", "b", "c", "d", "gone");

    private final Ledger ledger = ledger(h200s("a", 2), h200s("b", 2), h200s("c", 1), h200s("d", 4));
    private final AtomicInteger scored = new AtomicInteger();
    private final FragmentationPolicy policy = new FragmentationPolicy(TaskMix.ofDemands(List.of(gib(7), gib(20), gib(40))));
    private final PlacementEngine engine = new PlacementEngine(ledger, new Counting(policy, true, scored));
    private final PlacementEngine fresh = new PlacementEngine(ledger, new Counting(policy, false, new AtomicInteger()));

    ScoreBoardTest() {
        occupy(ledger, "a", 0, 30 * G, "p1");
        occupy(ledger, "c", 0, 60 * G, "p2");
    }

    /** The policy's scores, counted; with {@code remember} its key is the policy and the demand, else none. */
    private record Counting(FragmentationPolicy inner, boolean remember, AtomicInteger scored) implements PlacementPolicy {
        @Override public String name() { return inner.name(); }
        @Override public Evaluation evaluate(NodeState node, GpuDemand demand) { return inner.evaluate(node, demand); }
        @Override public long score(NodeState node, GpuDemand demand) { scored.incrementAndGet(); return inner.score(node, demand); }
        @Override public Object scoreKey(GpuDemand demand) { return remember ? List.of(this, demand) : null; }
    }

    private int scoredBy(Runnable r) {
        int before = scored.get();
        r.run();
        return scored.get() - before;
    }

    @Test void prioritize_sameShapeAgain_nodesNotScoredAgain_untilOneChanges() {
        GpuDemand d = gib(7);
        var expected = fresh.prioritize(d, NODES);
        assertThat(scoredBy(() -> assertThat(engine.prioritize(d, NODES)).isEqualTo(expected))).isEqualTo(4); // first ask: no board
        assertThat(scoredBy(() -> assertThat(engine.prioritize(d, NODES)).isEqualTo(expected))).isEqualTo(4); // second: board made, filled
        assertThat(scoredBy(() -> assertThat(engine.prioritize(d, NODES)).isEqualTo(expected))).isZero();    // from the board

        var booked = engine.assume(PodKey.of("default", "new"), "u", "b", demand(2 * 138 * G, 0, 2)); // b keeps too little for 7 GiB on either GPU
        assertThat(booked).isInstanceOf(AssumeResult.Assumed.class);
        var afterBooking = fresh.prioritize(d, NODES);
        assertThat(afterBooking.get(1).score()).isZero(); // b no longer fits
        assertThat(scoredBy(() -> assertThat(engine.prioritize(d, NODES)).isEqualTo(afterBooking))).isEqualTo(1); // b alone

        ledger.fitIndex().touch("d");
        assertThat(scoredBy(() -> assertThat(engine.prioritize(d, NODES)).isEqualTo(afterBooking))).isEqualTo(1); // d alone

        ledger.release(PodKey.of("default", "new"));
        assertThat(scoredBy(() -> assertThat(engine.prioritize(d, NODES)).isEqualTo(expected))).isEqualTo(1);
    }

    @Test void prioritize_otherShape_ownBoard() {
        engine.prioritize(gib(7), NODES);
        engine.prioritize(gib(7), NODES);
        assertThat(scoredBy(() -> engine.prioritize(gib(20), NODES))).isEqualTo(4);
        assertThat(scoredBy(() -> engine.prioritize(gib(20), NODES))).isEqualTo(4);
        assertThat(scoredBy(() -> engine.prioritize(gib(7), NODES))).isZero();
        assertThat(scoredBy(() -> engine.prioritize(gib(20), NODES))).isZero();
    }

    @Test void prioritize_noKey_everyNodeScoredEveryTime() {
        var forgetful = new PlacementEngine(ledger, new Counting(policy, false, scored));
        for (int i = 0; i < 3; i++) assertThat(scoredBy(() -> forgetful.prioritize(gib(7), NODES))).isEqualTo(4);
    }

    /** The node of the pod's own booking is scored without that booking, every time, and never from the board. */
    @Test void prioritize_ownBooking_scoredAfreshWithoutIt() {
        PodKey own = PodKey.of("default", "p1"); // on a
        GpuDemand d = ledger.allocation(own).orElseThrow().demand();
        var expected = fresh.prioritize(d, NODES, own);
        for (int i = 0; i < 3; i++) assertThat(engine.prioritize(d, NODES, own)).isEqualTo(expected);
        assertThat(scoredBy(() -> engine.prioritize(d, NODES, own))).isEqualTo(1);
        assertThat(engine.prioritize(d, NODES)).isEqualTo(fresh.prioritize(d, NODES)); // another pod of that shape: a counts p1
    }

    /** By slots, as the filter's shortlist asks: the same scores as by name. */
    @Test void prioritizeBySlots_sameAsByName() {
        var v = ledger.fitIndex().view();
        int[] slots = NODES.stream().mapToInt(v::slot).toArray();
        GpuDemand d = gib(20);
        int[] byName = fresh.prioritize(d, NODES).stream().mapToInt(PlacementEngine.NodeScore::score).toArray();
        for (int i = 0; i < 3; i++) assertThat(engine.prioritize(d, slots, null)).containsExactly(byName);
    }
}
