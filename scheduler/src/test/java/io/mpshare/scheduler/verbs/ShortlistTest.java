package io.mpshare.scheduler.verbs;

import io.mpshare.core.ledger.Ledger;
import io.mpshare.core.model.PodKey;
import io.mpshare.core.policy.BinpackPolicy;
import io.mpshare.core.policy.PlacementEngine;
import io.mpshare.core.policy.PlacementEngine.NodeScore;
import io.mpshare.kube.KubePod;
import io.mpshare.scheduler.TestClock;
import io.mpshare.scheduler.Wiring;
import io.mpshare.scheduler.cycle.Ask;
import io.mpshare.scheduler.cycle.HeldRoom;
import io.mpshare.scheduler.cycle.PipelineHolds;
import io.mpshare.testing.Nodes;
import io.mpshare.testing.Pods;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The filter's shortlist: the nodes the policy ranks best, in request order, the policy's first choice among them. */
class ShortlistTest {
    private final TestClock clock = new TestClock();
    private final Ledger ledger = new Ledger(clock, Duration.ofMinutes(5));
    private final PlacementEngine engine = new PlacementEngine(ledger, new BinpackPolicy());
    private final List<String> names = new ArrayList<>();

    /** Names as kube-scheduler's request carries them: UTF-8 bytes with each name's offset and length. */
    private record Raw(byte[] buf, int[] off, int[] len) {}

    private Raw raw() {
        var out = new ByteArrayOutputStream();
        int[] off = new int[names.size()], len = new int[names.size()];
        for (int i = 0; i < names.size(); i++) {
            byte[] b = names.get(i).getBytes(StandardCharsets.UTF_8);
            off[i] = out.size();
            len[i] = b.length;
            out.writeBytes(b);
        }
        return new Raw(out.toByteArray(), off, len);
    }

    /** One-GPU nodes of the given sizes in GiB, in request order. */
    private void nodes(int... gib) {
        for (int i = 0; i < gib.length; i++) {
            String n = "n" + i;
            ledger.upsertNode(Nodes.node(n).gpus(1, gib[i] * 1024L).inventory());
            names.add(n);
        }
    }

    private Verbs verbs(int shortlist, boolean holds) {
        return new Verbs(engine, Wiring.ASKS, holds ? new PipelineHolds(engine, clock, Duration.ofSeconds(5)) : PipelineHolds.off(engine), HeldRoom.NONE, shortlist);
    }

    private static Ask gpuAsk(Verbs v, String pod, int gib) {
        return v.ask(KubePod.of(Pods.pod(pod).uid("u-" + pod).gpuMem(gib).build()).facts());
    }

    private List<String> kept(Verbs.IndexedFilterAnswer a) {
        return IntStream.range(0, a.fitCount()).mapToObj(i -> names.get(a.fits()[i])).toList();
    }

    private Verbs.IndexedFilterAnswer filterAndShortlist(Verbs v, Ask ask) {
        Raw r = raw();
        var a = v.filter(ask, r.buf(), r.off(), r.len(), null, names.size(), PlacementEngine.Reasons.WHEN_NONE_KEPT);
        return v.shortlist(ask, a, r.buf(), r.off(), r.len(), null);
    }

    @Test void moreFitThanTheShortlist_keepsTheBestScoredInRequestOrder() {
        nodes(80, 12, 40, 16, 141, 24, 8, 48); // n6 (8 GiB) cannot take 10 GiB; binpack ranks the tightest fit best
        Verbs v = verbs(3, false);
        Ask ask = gpuAsk(v, "p", 10);
        var a = filterAndShortlist(v, ask);
        // every fitting node scored as prioritize scores them all; the three best, ties in request order, kept in request order
        List<NodeScore> all = verbs(0, false).prioritize(ask, names.stream().filter(n -> !n.equals("n6")).toList()).scores();
        List<String> best = all.stream().sorted(Comparator.comparingInt(NodeScore::score).reversed()).limit(3).map(NodeScore::node).toList();
        assertThat(kept(a)).containsExactlyInAnyOrderElementsOf(best).isSortedAccordingTo(Comparator.comparingInt(names::indexOf));
        assertThat(kept(a)).containsExactly("n1", "n3", "n5"); // 12, 16 and 24 GiB: the tightest fits
        assertThat(a.failed()).isEmpty();
        assertThat(a.error()).isEmpty();
    }

    @Test void tiesAtTheTop_theFirstInRequestOrderAreKept_andPrioritizeHoldsTheSameNodeAsOverAll() {
        nodes(80, 16, 16, 16, 16, 16, 80);
        Verbs v = verbs(2, true);
        Ask ask = gpuAsk(v, "p", 10);
        var a = filterAndShortlist(v, ask);
        assertThat(kept(a)).containsExactly("n1", "n2");
        // over the shortlist, prioritize ranks first (and holds) the node it ranks first over every node that fits
        List<NodeScore> over = v.prioritize(ask, kept(a)).scores();
        assertThat(over).filteredOn(s -> s.score() == PlacementEngine.MAX_SCORE).extracting(NodeScore::node).containsExactly("n1");
        assertThat(v.holds().size()).isEqualTo(1);
        assertThat(ledger.allocation(PodKey.of("default", "p")).orElseThrow().node()).isEqualTo("n1");
    }

    @Test void noMoreFitThanTheShortlist_theAnswerAsItIs() {
        nodes(80, 12, 8);
        Verbs v = verbs(2, false);
        Ask ask = gpuAsk(v, "p", 10);
        Raw r = raw();
        var a = v.filter(ask, r.buf(), r.off(), r.len(), null, names.size(), PlacementEngine.Reasons.WHEN_NONE_KEPT);
        assertThat(v.shortlist(ask, a, r.buf(), r.off(), r.len(), null)).isSameAs(a);
        assertThat(kept(a)).containsExactly("n0", "n1");
    }

    @Test void podWithoutGpu_everyNodeKept() {
        nodes(80, 12, 40, 16);
        Verbs v = verbs(2, false);
        Ask none = v.ask(KubePod.of(Pods.pod("plain").uid("u-plain").cpu("1").build()).facts());
        assertThat(none).isInstanceOf(Ask.None.class);
        assertThat(kept(filterAndShortlist(v, none))).containsExactlyElementsOf(names);
    }

    @Test void shortlistOff_everyFittingNodeKept() {
        nodes(80, 12, 40, 16, 141);
        Verbs v = verbs(0, false);
        assertThat(kept(filterAndShortlist(v, gpuAsk(v, "p", 10)))).containsExactlyElementsOf(names);
    }

    private Verbs picking(int shortlist) {
        return new Verbs(engine, Wiring.ASKS, new PipelineHolds(engine, clock, Duration.ofSeconds(5)), HeldRoom.NONE, shortlist, true);
    }

    private Verbs.IndexedFilterAnswer filterAndPick(Verbs v, Ask ask, boolean prefers) {
        Raw r = raw();
        var a = v.filter(ask, r.buf(), r.off(), r.len(), null, names.size(), PlacementEngine.Reasons.WHEN_NONE_KEPT);
        return v.shortlist(ask, a, r.buf(), r.off(), r.len(), null, prefers);
    }

    /**
     * A pod without preferences of its own gets the one node prioritize would rank first over every node that fits, and
     * its room there is held for the bind (kube-scheduler skips prioritize, where the hold is otherwise taken).
     */
    @Test void pickInFilter_podWithoutPreferences_theBestNodeAlone_heldForItsBind() {
        nodes(80, 16, 40, 16, 141, 24, 8, 48);
        Verbs v = picking(3);
        Ask ask = gpuAsk(v, "p", 10);
        List<NodeScore> all = verbs(0, false).prioritize(ask, names.stream().filter(n -> !n.equals("n6")).toList()).scores();
        String best = all.stream().filter(sc -> sc.score() == PlacementEngine.MAX_SCORE).findFirst().orElseThrow().node();

        var a = filterAndPick(v, ask, false);
        assertThat(kept(a)).containsExactly(best).containsExactly("n1"); // the first of the tightest fits
        assertThat(v.holds().size()).isEqualTo(1);
        assertThat(ledger.allocation(PodKey.of("default", "p")).orElseThrow().node()).isEqualTo("n1");

        // the next pod of that shape, pipelined before the first one's bind: the held room counts, n3 is its pick
        var b = filterAndPick(v, gpuAsk(v, "q", 10), false);
        assertThat(kept(b)).containsExactly("n3");
    }

    @Test void pickInFilter_podWithPreferences_getsTheShortlist_noHold() {
        nodes(80, 16, 40, 16, 141, 24, 8, 48);
        Verbs v = picking(3);
        assertThat(kept(filterAndPick(v, gpuAsk(v, "p", 10), true))).containsExactly("n1", "n3", "n5");
        assertThat(v.holds().size()).isZero();
    }

    /** Whatever leaves one node (here only one fits), kube-scheduler skips prioritize: the filter holds it. */
    @Test void oneNodeLeft_heldByTheFilter_withoutPick() {
        nodes(8, 12, 8);
        Verbs v = verbs(2, true);
        var a = filterAndPick(v, gpuAsk(v, "p", 10), true);
        assertThat(kept(a)).containsExactly("n1");
        assertThat(ledger.allocation(PodKey.of("default", "p")).orElseThrow().node()).isEqualTo("n1");
    }

    @Test void shortlistOfOne_refused() {
        // kube-scheduler skips prioritize, where the pipelining hold is taken, when one node is left
        assertThatThrownBy(() -> verbs(1, false)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("at least 2");
    }
}
