package io.mpshare.scheduler.cycle;

import io.mpshare.core.ledger.Ledger;
import io.mpshare.core.ledger.Phase;
import io.mpshare.core.model.PodKey;
import io.mpshare.core.policy.BinpackPolicy;
import io.mpshare.core.policy.PlacementEngine;
import io.mpshare.core.policy.PlacementEngine.NodeScore;
import io.mpshare.kube.KubePod;
import io.mpshare.kube.PodFacts;
import io.mpshare.scheduler.TestClock;
import io.mpshare.scheduler.Wiring;
import io.mpshare.scheduler.bind.BindOutcome;
import io.mpshare.scheduler.bind.Binder;
import io.mpshare.scheduler.bind.FakePodApi;
import io.mpshare.scheduler.verbs.Verbs;
import io.mpshare.testing.Nodes;
import io.mpshare.testing.Pods;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * kube-scheduler's pipelining as a sequence of calls: pod A is prioritized, and before A's bind arrives pod B is
 * filtered, prioritized and bound (issue 12, item 3). Two one-GPU nodes with room for one such pod each.
 */
class PipelineHoldsTest {
    private static final List<String> NODES = List.of("n1", "n2");
    private final TestClock clock = new TestClock();
    private final Ledger ledger = new Ledger(clock, Duration.ofMinutes(5));
    private final FakePodApi api = new FakePodApi();

    private Verbs verbs(Duration hold) {
        ledger.upsertNode(Nodes.node("n1").gpus(1, 16_384).inventory());
        ledger.upsertNode(Nodes.node("n2").gpus(1, 16_384).inventory());
        var engine = new PlacementEngine(ledger, new BinpackPolicy());
        return Wiring.verbs(engine, new PipelineHolds(engine, clock, hold));
    }

    private PodFacts pod(String name) {
        api.put(Pods.pod(name).uid("u-" + name).gpuMem(10).build());
        return KubePod.of(api.pod(PodKey.of("default", name))).facts();
    }

    /** B's filter runs between A's prioritize and A's bind; where kube-scheduler then sends B is the top-scored node. */
    private String pipelined(Verbs verbs, Binder binder, PodFacts a, PodFacts b) {
        String nodeA = top(verbs.prioritize(verbs.ask(a), NODES).scores());
        var fitsB = verbs.filter(verbs.ask(b), NODES).fits();
        String nodeB = top(verbs.prioritize(verbs.ask(b), fitsB).scores());
        assertThat(binder.bind("default", "a", "u-a", nodeA)).isInstanceOf(BindOutcome.Bound.class);
        return binder.bind("default", "b", "u-b", nodeB) instanceof BindOutcome.Failed f ? f.reason() : "bound";
    }

    private static String top(List<NodeScore> scores) {
        NodeScore best = scores.getFirst();
        for (NodeScore s : scores) if (s.score() > best.score()) best = s;
        return best.node();
    }

    /** The regression: without holds B is scored onto A's node and its bind fails; with them, both bind. */
    @ParameterizedTest(name = "hold {0} s")
    @ValueSource(ints = {0, 5})
    void filterDuringInFlightBind_holdKeepsNextPodOffTheRoom(int holdSeconds) {
        Verbs verbs = verbs(Duration.ofSeconds(holdSeconds));
        var binder = Wiring.binder(verbs, api);
        String outcome = pipelined(verbs, binder, pod("a"), pod("b"));
        assertThat(outcome).isEqualTo(holdSeconds == 0 ? "no_room" : "bound");
        if (holdSeconds > 0) {
            assertThat(ledger.node("n1").allocatedMib() + ledger.node("n2").allocatedMib()).isEqualTo(2 * (10 * 1024 + 512));
            assertThat(verbs.holds().size()).isZero(); // both claimed by their binds
        }
    }

    @Test void prioritize_tiesAtTheTop_onlyTheHeldNodeKeepsTen() {
        Verbs verbs = verbs(Duration.ofSeconds(5));
        var scores = verbs.prioritize(verbs.ask(pod("a")), NODES).scores();
        assertThat(scores).extracting(NodeScore::score).containsExactly(10, 9);
        assertThat(ledger.allocation(PodKey.of("default", "a"))).get().satisfies(h -> {
            assertThat(h.node()).isEqualTo("n1");
            assertThat(h.phase()).isEqualTo(Phase.ASSUMED);
        });
    }

    @Test void expire_unclaimedHoldAfterTtl_released_claimedKept() {
        Verbs verbs = verbs(Duration.ofSeconds(5));
        verbs.prioritize(verbs.ask(pod("a")), NODES);
        verbs.prioritize(verbs.ask(pod("b")), NODES);
        assertThat(verbs.holds().claim(PodKey.of("default", "b"))).isTrue();
        clock.advance(Duration.ofSeconds(4));
        assertThat(verbs.holds().expire()).isEmpty();
        clock.advance(Duration.ofSeconds(1));
        assertThat(verbs.holds().expire()).extracting(a -> a.pod().name()).containsExactly("a");
        assertThat(ledger.allocation(PodKey.of("default", "a"))).isEmpty();
        assertThat(ledger.allocation(PodKey.of("default", "b"))).isPresent(); // its bind owns it now
    }

    @Test void bind_toAnotherNodeThanHeld_movesTheBooking_failureFreesIt() {
        Verbs verbs = verbs(Duration.ofSeconds(5));
        var binder = Wiring.binder(verbs, api);
        verbs.prioritize(verbs.ask(pod("a")), NODES); // held on n1
        api.bindFailures.set(1);
        assertThat(binder.bind("default", "a", "u-a", "n2")).isInstanceOf(BindOutcome.Failed.class);
        assertThat(ledger.node("n1").allocatedMib()).isZero();
        assertThat(ledger.node("n2").allocatedMib()).isZero();
        assertThat(binder.bind("default", "a", "u-a", "n2")).isInstanceOf(BindOutcome.Bound.class);
        assertThat(ledger.node("n2").allocatedMib()).isEqualTo(10 * 1024 + 512);
    }
}
