package io.mpshare.core.policy;

import io.mpshare.core.ledger.Ledger;
import io.mpshare.core.ledger.NodeState;
import io.mpshare.core.model.Gpu;
import io.mpshare.core.model.GpuDemand;
import io.mpshare.core.model.NodeInventory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.stream.Stream;

import static io.mpshare.core.CoreFixtures.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.params.provider.Arguments.argumentSet;

/** BinpackPolicy and SpreadPolicy: which GPUs they choose, and the reasons when they choose none. */
class PolicyTest {
    private static final long G = 1024;

    /** A node of GPUs with the given sizes and the given MiB already booked on each. */
    static NodeState state(long[] sizes, long[] used) {
        Ledger l = ledger(node("n", sizes));
        for (int i = 0; i < used.length; i++) if (used[i] > 0) occupy(l, "n", i, used[i], "used-" + i);
        return l.node("n");
    }

    static long[] sizes(long... s) { return s; }
    static long[] used(long... u) { return u; }
    static int[] gpus(int... p) { return p; }

    static final long[] FOUR_H200 = {H200_MIB, H200_MIB, H200_MIB, H200_MIB};

    /** node GPUs, booked MiB, demand → binpack's choice, spread's choice. */
    static Stream<Arguments> choices() {
        return Stream.of(
                argumentSet("empty node: both take GPU 0", FOUR_H200, used(0, 0, 0, 0), gib(7), gpus(0), gpus(0)),
                argumentSet("binpack takes the fullest GPU that fits, spread the emptiest", FOUR_H200,
                        used(10 * G, 100 * G, 50 * G, 0), gib(7), gpus(1), gpus(3)),
                argumentSet("binpack skips a GPU too full for the pod", FOUR_H200,
                        used(10 * G, 138 * G, 50 * G, 0), gib(7), gpus(2), gpus(3)),
                argumentSet("ties go to the lower index", FOUR_H200, used(20 * G, 20 * G, 20 * G, 20 * G), gib(7), gpus(0), gpus(0)),
                argumentSet("two GPUs: binpack the two fullest", FOUR_H200,
                        used(10 * G, 100 * G, 50 * G, 0), demand(14 * G, 0, 2), gpus(1, 2), gpus(0, 3)),
                argumentSet("two GPUs with a tie after a swap: lower index wins", FOUR_H200, // regression: selection swap broke ties
                        used(20 * G, 20 * G, 30 * G, 0), demand(14 * G, 0, 2), gpus(0, 2), gpus(0, 3)),
                argumentSet("heterogeneous sizes: best fit by free memory, not by size", sizes(24_576, 81_920, H200_MIB),
                        used(0, 60 * G, 0), gib(16), gpus(1), gpus(2)),
                argumentSet("core share full on the fullest GPU", FOUR_H200, used(0, 0, 0, 0), demand(7 * G, 60, 1), gpus(0), gpus(0)));
    }

    @ParameterizedTest
    @MethodSource("choices")
    void evaluate_roomOnNode_choosesGpus(long[] sizes, long[] used, GpuDemand d, int[] binpack, int[] spread) {
        NodeState s = state(sizes, used);
        assertThat(((Evaluation.Fits) new BinpackPolicy().evaluate(s, d)).positions()).as("binpack").containsExactly(binpack);
        assertThat(((Evaluation.Fits) new SpreadPolicy().evaluate(s, d)).positions()).as("spread").containsExactly(spread);
    }

    @Test
    void evaluate_coreShareTaken_skipsGpuWithoutCores() {
        Ledger l = ledger(h200s("n", 2));
        l.assume(key("busy"), "", "n", demand(1024, 80, 1), new BinpackPolicy());
        var f = (Evaluation.Fits) new BinpackPolicy().evaluate(l.node("n"), demand(1024, 30, 1));
        assertThat(f.positions()).containsExactly(1);
    }

    /** node GPUs, booked MiB, demand → Unfit or Unresolvable, and what the reason must say. */
    static Stream<Arguments> refusals() {
        return Stream.of(
                argumentSet("no GPU has room: says memory is short and the need", sizes(H200_MIB, H200_MIB),
                        used(140 * G, 137 * G), gib(7), Evaluation.Unfit.class,
                        List.of("no GPU with 7.5 GiB free (7 GiB asked + 512 MiB CUDA reserve): wait, or lower aliyun.com/gpu-mem")),
                argumentSet("one GPU with room but two asked", sizes(H200_MIB, H200_MIB),
                        used(140 * G, 0), demand(14 * G, 0, 2), Evaluation.Unfit.class,
                        List.of("fewer than 2 GPUs with 7.5 GiB each free", "or aliyun.com/gpu-count")),
                argumentSet("pod larger than any GPU", sizes(24_576, 81_920), used(0, 0), gib(100), Evaluation.Unresolvable.class,
                        List.of("GPUs too small: the largest has 80 GiB, pod needs 100.5 GiB: lower aliyun.com/gpu-mem")),
                argumentSet("fewer GPUs than gpu-count", sizes(H200_MIB), used(0), demand(2 * G, 0, 2), Evaluation.Unresolvable.class,
                        List.of("fewer than 2 GPUs of 1.5 GiB or more: lower aliyun.com/gpu-count or aliyun.com/gpu-mem")),
                argumentSet("only one GPU large enough for two", sizes(24_576, H200_MIB), used(0, 0), demand(60 * G, 0, 2),
                        Evaluation.Unresolvable.class, List.of("fewer than 2 GPUs of 30.5 GiB or more")),
                argumentSet("node without GPUs", sizes(), used(), gib(1), Evaluation.Unresolvable.class,
                        List.of("publishes no mpshare GPUs", "check its mpshare device plugin")));
    }

    @ParameterizedTest
    @MethodSource("refusals")
    void evaluate_noRoom_reasonSaysWhichGpuHasHowMuch(long[] sizes, long[] used, GpuDemand d,
                                                       Class<? extends Evaluation> kind, List<String> fragments) {
        for (PlacementPolicy p : List.of(new BinpackPolicy(), new SpreadPolicy())) {
            Evaluation e = p.evaluate(state(sizes, used), d);
            assertThat(e).as(p.name()).isInstanceOf(kind);
            String reason = e instanceof Evaluation.Unfit u ? u.reason() : ((Evaluation.Unresolvable) e).reason();
            for (String f : fragments) assertThat(reason).as(p.name()).contains(f);
        }
    }

    @Test
    void evaluate_memoryFreeCoresTaken_reasonSaysCores() {
        Ledger l = ledger(h200s("n", 1));
        l.assume(key("busy"), "", "n", demand(1024, 80, 1), new BinpackPolicy());
        var e = (Evaluation.Unfit) new BinpackPolicy().evaluate(l.node("n"), demand(7 * G, 50, 1));
        assertThat(e.reason()).isEqualTo("no GPU with 7.5 GiB and 50 percent of cores free: wait, or lower aliyun.com/gpu-core.percentage");
    }

    /**
     * Regression (issue 12): kube-scheduler groups reasons as "N reason" and formats the message printf-style, cut at
     * 1,024 characters. Over many nodes with every amount free, the reasons must be few, free of '%' and of node names.
     */
    @Test
    void explain_manyNodesEveryAmountFree_fewReasonsNoPercentNoNodeName() {
        var reasons = new java.util.TreeSet<String>();
        var d = demand(7 * G, 30, 1);
        for (int n = 0; n < 300; n++) {
            Ledger l = ledger(h200s("node-" + n, 8));
            for (int g = 0; g < 8; g++) l.assume(key("p" + g), "", "node-" + n, demand(139 * G - (n * 7L + g) % 9 * 256, (n + g) % 90, 1), new BinpackPolicy());
            Evaluation e = new BinpackPolicy().evaluate(l.node("node-" + n), d);
            if (e instanceof Evaluation.Unfit u) reasons.add(u.reason());
        }
        assertThat(reasons).isNotEmpty().hasSizeLessThanOrEqualTo(2);
        assertThat(String.join(", ", reasons)).doesNotContain("%", "node-").hasSizeLessThan(250);
    }

    @Test
    void evaluate_allGpusUnhealthy_unfitNotUnresolvable() { // regression: a daemon restart made nodes unresolvable
        var inv = new NodeInventory("n", List.of(new Gpu(0, "GPU-0", "NVIDIA H200", H200_MIB, false)));
        Evaluation e = new BinpackPolicy().evaluate(NodeState.empty(inv), gib(7));
        assertThat(e).isInstanceOf(Evaluation.Unfit.class);
        assertThat(((Evaluation.Unfit) e).reason()).contains("no healthy GPU");
    }

    @Test
    void evaluate_unhealthyGpuSkipped_healthyOneChosen() {
        var inv = new NodeInventory("n", List.of(new Gpu(0, "GPU-0", "H200", H200_MIB, false), new Gpu(1, "GPU-1", "H200", H200_MIB, true)));
        assertThat(((Evaluation.Fits) new BinpackPolicy().evaluate(NodeState.empty(inv), gib(7))).positions()).containsExactly(1);
    }

    @Test
    void score_binpack_tighterFitScoresHigher_spreadTheOpposite() {
        NodeState tight = state(FOUR_H200, used(130 * G, 0, 0, 0));
        NodeState loose = state(FOUR_H200, used(0, 0, 0, 0));
        long bt = ((Evaluation.Fits) new BinpackPolicy().evaluate(tight, gib(7))).score();
        long bl = ((Evaluation.Fits) new BinpackPolicy().evaluate(loose, gib(7))).score();
        long st = ((Evaluation.Fits) new SpreadPolicy().evaluate(tight, gib(7))).score();
        long sl = ((Evaluation.Fits) new SpreadPolicy().evaluate(loose, gib(7))).score();
        assertThat(bt).isGreaterThan(bl);
        assertThat(sl).isGreaterThan(st);
    }

    @Test
    void score_sameLeftoverOnGpu_binpackPrefersFullerNode_spreadEmptier() {
        NodeState fuller = state(FOUR_H200, used(100 * G, 100 * G, 100 * G, 100 * G));
        NodeState emptier = state(FOUR_H200, used(100 * G, 0, 0, 0));
        var d = gib(30); // binpack picks a 100 GiB-used GPU on both; spread an empty one on emptier
        assertThat(((Evaluation.Fits) new BinpackPolicy().evaluate(fuller, d)).score())
                .isGreaterThan(((Evaluation.Fits) new BinpackPolicy().evaluate(emptier, d)).score());
        NodeState a = state(FOUR_H200, used(0, 10 * G, 10 * G, 10 * G));
        NodeState b = state(FOUR_H200, used(0, 0, 0, 0));
        assertThat(((Evaluation.Fits) new SpreadPolicy().evaluate(b, d)).score())
                .isGreaterThan(((Evaluation.Fits) new SpreadPolicy().evaluate(a, d)).score());
    }

    /**
     * UIDs already on the node, the pod's UID, rule on → fits? For pods of the node daemon ({@code node} kind: what a
     * demand without a domain is); pods of {@code tenant} and {@code pod} domains share by room (DomainAwarePlacementTest).
     */
    static Stream<Arguments> uidRule() {
        return Stream.of(
                argumentSet("same UID shares", List.of(1000L), OptionalLong.of(1000), true, true),
                argumentSet("other UID refused", List.of(1000L), OptionalLong.of(2000), true, false),
                argumentSet("other UID allowed when the rule is off", List.of(1000L), OptionalLong.of(2000), false, true),
                argumentSet("pod with unknown UID is not held back", List.of(1000L), OptionalLong.empty(), true, true),
                argumentSet("empty node takes any UID", List.<Long>of(), OptionalLong.of(2000), true, true),
                argumentSet("pods of unknown UID do not block", List.<Long>of(-1L), OptionalLong.of(2000), true, true));
    }

    @ParameterizedTest
    @MethodSource("uidRule")
    void evaluate_uidRule_nodeDaemonPods(List<Long> present, OptionalLong podUid, boolean ruleOn, boolean fits) {
        Ledger l = ledger(h200s("n", 2));
        List<Long> uids = new ArrayList<>(present);
        for (int i = 0; i < uids.size(); i++) {
            OptionalLong u = uids.get(i) < 0 ? OptionalLong.empty() : OptionalLong.of(uids.get(i));
            l.assume(key("p" + i), "", "n", demand(1024, 0, 1, u), new BinpackPolicy());
        }
        for (PlacementPolicy p : List.of(new BinpackPolicy(ruleOn), new SpreadPolicy(ruleOn))) {
            Evaluation e = p.evaluate(l.node("n"), demand(1024, 0, 1, podUid));
            assertThat(e instanceof Evaluation.Fits).as(p.name()).isEqualTo(fits);
            assertThat(p.fits(l.node("n"), demand(1024, 0, 1, podUid))).as(p.name() + " fits").isEqualTo(fits);
            assertThat(p.score(l.node("n"), demand(1024, 0, 1, podUid)) != PlacementPolicy.NO_FIT).as(p.name() + " score").isEqualTo(fits);
            if (!fits) assertThat(((Evaluation.Unfit) e).reason()).contains("another UID", "pod runs as UID 2000", "one UID at a time").doesNotContain("1000");
        }
    }

    @Test
    void uidRule_nodeDaemonPods_lastPodOfUidReleased_otherUidFitsAgain() {
        Ledger l = ledger(h200s("n", 1));
        var rule = new BinpackPolicy(true);
        l.assume(key("a"), "", "n", demand(1024, 0, 1, OptionalLong.of(1000)), rule);
        assertThat(rule.evaluate(l.node("n"), demand(1024, 0, 1, OptionalLong.of(2000)))).isInstanceOf(Evaluation.Unfit.class);
        l.release(key("a"));
        assertThat(rule.evaluate(l.node("n"), demand(1024, 0, 1, OptionalLong.of(2000)))).isInstanceOf(Evaluation.Fits.class);
    }
}
