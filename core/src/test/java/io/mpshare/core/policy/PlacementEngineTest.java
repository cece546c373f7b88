package io.mpshare.core.policy;

import io.mpshare.core.ledger.AssumeResult;
import io.mpshare.core.ledger.Ledger;
import io.mpshare.core.model.PodKey;
import org.junit.jupiter.api.Test;

import java.util.List;

import static io.mpshare.core.CoreFixtures.*;
import static org.assertj.core.api.Assertions.assertThat;

class PlacementEngineTest {
    private static final long G = 1024;

    /** full: no room; tight: 10 GiB left on GPU 0; half: 70 GiB used; empty; small: GPUs too small. */
    private final Ledger ledger = ledger(h200s("full", 1), h200s("tight", 1), h200s("half", 1), h200s("empty", 1),
            node("small", 4096, 4096));
    private final PlacementEngine binpack = new PlacementEngine(ledger, new BinpackPolicy());

    PlacementEngineTest() {
        occupy(ledger, "full", 0, H200_MIB, "f");
        occupy(ledger, "tight", 0, H200_MIB - 10 * G, "t");
        occupy(ledger, "half", 0, 70 * G, "h");
    }

    private static final List<String> ALL = List.of("full", "tight", "half", "empty", "small", "unknown");

    @Test
    void filter_mixedNodes_keepsFitsInOrderAndSaysWhyForOthers() {
        var out = binpack.filter(gib(7), ALL);

        assertThat(out.fits()).containsExactly("tight", "half", "empty");
        assertThat(out.failed()).containsOnlyKeys("full");
        assertThat(out.failed().get("full")).contains("no GPU with 7.5 GiB free");
        assertThat(out.unresolvable()).containsOnlyKeys("small", "unknown");
        assertThat(out.unresolvable().get("small")).contains("the largest has 4 GiB");
        assertThat(out.unresolvable().get("unknown")).isEqualTo(PlacementEngine.NO_INVENTORY);
    }

    /** Regression (issue 12, item 11): a booking the pod itself holds (an interrupted bind) never refuses the pod. */
    @Test
    void filter_ownBookingFillsNode_nodeKeptForThatPodOnly() {
        var own = PodKey.of("default", "f");   // "full" is full because of the pod "f" itself
        var d = ledger.allocation(own).orElseThrow().demand();
        byte[] buf = "fullempty".getBytes(java.nio.charset.StandardCharsets.UTF_8);
        int[] off = {0, 4}, len = {4, 5};

        var forItself = binpack.filter(d, buf, off, len, null, 2, own);
        var forOther = binpack.filter(d, buf, off, len, null, 2, PodKey.of("default", "other"));

        assertThat(java.util.Arrays.copyOf(forItself.fits(), forItself.fitCount())).containsExactly(0, 1);
        assertThat(forItself.failed()).isEmpty();
        assertThat(java.util.Arrays.copyOf(forOther.fits(), forOther.fitCount())).containsExactly(1);
        assertThat(binpack.filter(d, List.of("full", "empty"), own).fits()).containsExactly("full", "empty");
        assertThat(binpack.prioritize(d, List.of("full", "empty"), own)).allSatisfy(sc -> assertThat(sc.score()).isPositive());
    }

    /** Names as a request body holds them: "a""b"..., with their positions. */
    private record Body(byte[] buf, int[] off, int[] len) {
        static Body of(List<String> names) {
            var b = new StringBuilder();
            int[] off = new int[names.size()], len = new int[names.size()];
            for (int i = 0; i < names.size(); i++) { b.append('"'); off[i] = b.length(); len[i] = names.get(i).length(); b.append(names.get(i)).append('"'); }
            return new Body(b.toString().getBytes(java.nio.charset.StandardCharsets.UTF_8), off, len);
        }
    }

    @Test
    void filter_reasonsWhenNoneKept_keptNodesWithoutReasons_noneKeptEveryReason() {
        Body all = Body.of(ALL);
        var lazy = binpack.filter(gib(7), all.buf(), all.off(), all.len(), null, ALL.size(), null, PlacementEngine.Reasons.WHEN_NONE_KEPT);
        assertThat(java.util.Arrays.copyOf(lazy.fits(), lazy.fitCount())).containsExactly(1, 2, 3); // tight, half, empty
        assertThat(lazy.failed()).isEmpty();
        assertThat(lazy.unresolvable()).isEmpty();

        List<String> refused = List.of("full", "small", "unknown");
        Body none = Body.of(refused);
        var everyReason = binpack.filter(gib(7), none.buf(), none.off(), none.len(), null, 3, null, PlacementEngine.Reasons.WHEN_NONE_KEPT);
        var always = binpack.filter(gib(7), none.buf(), none.off(), none.len(), null, 3, null, PlacementEngine.Reasons.ALWAYS);
        assertThat(everyReason.fitCount()).isZero();
        assertThat(everyReason.failed()).isEqualTo(always.failed()).containsOnlyKeys("full");
        assertThat(everyReason.unresolvable()).isEqualTo(always.unresolvable()).containsOnlyKeys("small", "unknown");
    }

    /** Without reasons too, the node the pod's own booking fills is kept for that pod, in its place among the others. */
    @Test
    void filter_reasonsWhenNoneKept_ownBookingFillsNode_keptInOrder() {
        var own = PodKey.of("default", "f");
        var d = ledger.allocation(own).orElseThrow().demand();
        Body b = Body.of(List.of("empty", "full", "small"));
        var forItself = binpack.filter(d, b.buf(), b.off(), b.len(), null, 3, own, PlacementEngine.Reasons.WHEN_NONE_KEPT);
        var forOther = binpack.filter(d, b.buf(), b.off(), b.len(), null, 3, PodKey.of("default", "other"), PlacementEngine.Reasons.WHEN_NONE_KEPT);
        assertThat(java.util.Arrays.copyOf(forItself.fits(), forItself.fitCount())).containsExactly(0, 1);
        assertThat(java.util.Arrays.copyOf(forOther.fits(), forOther.fitCount())).containsExactly(0);
        assertThat(forOther.failed()).isEmpty();
    }

    @Test
    void prioritize_binpack_scoresZeroToTenTightestHighest() {
        var scores = binpack.prioritize(gib(7), ALL);

        assertThat(scores).extracting(PlacementEngine.NodeScore::node).containsExactlyElementsOf(ALL);
        assertThat(scores).allSatisfy(s -> assertThat(s.score()).isBetween(0, PlacementEngine.MAX_SCORE));
        assertThat(scoreOf(scores, "tight")).isEqualTo(10);
        assertThat(scoreOf(scores, "empty")).isEqualTo(0);
        assertThat(scoreOf(scores, "half")).isBetween(1, 9);
        assertThat(scoreOf(scores, "full")).isZero();
        assertThat(scoreOf(scores, "unknown")).isZero();
    }

    @Test
    void prioritize_spread_emptiestHighest() {
        var scores = new PlacementEngine(ledger, new SpreadPolicy()).prioritize(gib(7), ALL);
        assertThat(scoreOf(scores, "empty")).isEqualTo(10);
        assertThat(scoreOf(scores, "tight")).isEqualTo(0);
    }

    @Test
    void prioritize_allEqual_allScoreMax() {
        Ledger l = ledger(h200s("a", 2), h200s("b", 2));
        var scores = new PlacementEngine(l, new BinpackPolicy()).prioritize(gib(7), List.of("a", "b"));
        assertThat(scores).extracting(PlacementEngine.NodeScore::score).containsExactly(10, 10);
    }

    @Test
    void bestNode_tie_goesToSmallerName() {
        Ledger l = ledger(h200s("n3", 1), h200s("n1", 1), h200s("n2", 1));
        var engine = new PlacementEngine(l, new BinpackPolicy());
        assertThat(engine.bestNode(gib(7), List.of("n3", "n2", "n1"))).isEqualTo("n1");
        assertThat(engine.bestNode(gib(7), List.of("n3", "n1", "n2"))).isEqualTo("n1");
    }

    @Test
    void bestNode_noneFits_null() {
        assertThat(binpack.bestNode(gib(200), ALL)).isNull();
    }

    @Test
    void bestNode_binpack_picksTightest() {
        assertThat(binpack.bestNode(gib(7), ALL)).isEqualTo("tight");
    }

    @Test
    void assume_throughEngine_usesItsPolicy() {
        var r = binpack.assume(key("p"), "uid", "half", gib(7));
        assertThat(r).isInstanceOf(AssumeResult.Assumed.class);
        assertThat(ledger.node("half").allocatedMib(0)).isEqualTo(70 * G + 7680);
    }

    private static int scoreOf(List<PlacementEngine.NodeScore> scores, String node) {
        return scores.stream().filter(s -> s.node().equals(node)).findFirst().orElseThrow().score();
    }
}
