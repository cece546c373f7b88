package io.mpshare.core.preempt;

import io.mpshare.core.ledger.Ledger;
import io.mpshare.core.ledger.NodeState;
import io.mpshare.core.model.GpuDemand;
import io.mpshare.core.policy.BinpackPolicy;
import io.mpshare.core.policy.Evaluation;
import io.mpshare.core.preempt.NominatedHold.Nominee;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.List;
import java.util.stream.Stream;

import static io.mpshare.core.CoreFixtures.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.params.provider.Arguments.argumentSet;

class NominatedHoldTest {
    private static final long G = 1024;

    static GpuDemand gibs(long gib) { return GpuDemand.simple(gib * G, 0, 1, 0); }

    /** Two 16 GiB GPUs: GPU 0 has 4 GiB booked, GPU 1 has 14 GiB booked. */
    static NodeState node() {
        Ledger l = ledger(io.mpshare.core.CoreFixtures.node("n", 16 * G, 16 * G));
        occupy(l, "n", 0, 4 * G, "a");
        occupy(l, "n", 1, 14 * G, "b");
        return l.node("n");
    }

    static Nominee q(long gib, List<Integer> gpus) { return new Nominee(key("q"), 1000, gibs(gib), gpus); }

    static Stream<Arguments> cases() {
        return Stream.of(
                argumentSet("no nominee: as the policy says", List.of(), gibs(10), true),
                argumentSet("nominee on the GPU preemption chose: the rest still fits", List.of(q(10, List.of(0))), gibs(2), true),
                argumentSet("nominee on the GPU preemption chose: its room is not given away", List.of(q(10, List.of(0))), gibs(4), false),
                argumentSet("nominee placed by the policy when no GPU was recorded", List.of(q(12, List.of())), gibs(3), false),
                argumentSet("nominee that does not fit yet holds the GPU with the most room", List.of(q(13, List.of())), gibs(2), true),
                argumentSet("nominee that does not fit yet: the GPU it waits for is held", List.of(q(13, List.of())), gibs(3), false),
                argumentSet("a recorded GPU the node no longer has: placed by the policy", List.of(q(12, List.of(7))), gibs(3), false),
                argumentSet("a nominee already booked on the node is not counted twice",
                        List.of(new Nominee(key("a"), 1000, gibs(4), List.of(0))), gibs(12), true));
    }

    @ParameterizedTest
    @MethodSource("cases")
    void evaluate_holdsNominatedRoom(List<Nominee> nominees, GpuDemand pod, boolean fits) {
        Evaluation e = NominatedHold.evaluate(node(), nominees, pod, new BinpackPolicy());
        assertThat(e instanceof Evaluation.Fits).isEqualTo(fits);
    }

    @Test
    void evaluate_refused_reasonNamesTheHoldWithoutPercentOrNode() {
        Evaluation e = NominatedHold.evaluate(node(), List.of(q(10, List.of(0))), gibs(8), new BinpackPolicy());
        assertThat(((Evaluation.Unfit) e).reason()).contains("nominated", "default/q", "priority 1000").doesNotContain("%").doesNotContain("node n");
    }

    @Test
    void evaluate_doesNotChangeTheSnapshot() {
        NodeState n = node();
        NominatedHold.evaluate(n, List.of(q(10, List.of(0))), gibs(8), new BinpackPolicy());
        assertThat(n.allocatedByIndex()).containsEntry(0, 4 * G).containsEntry(1, 14 * G);
    }
}
