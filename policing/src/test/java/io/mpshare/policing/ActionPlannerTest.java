package io.mpshare.policing;

import io.mpshare.core.ledger.Allocation;
import io.mpshare.policing.Finding.OverLimit;
import io.mpshare.policing.Finding.Rogue;
import io.mpshare.policing.Finding.Unknown;
import io.mpshare.policing.Finding.Why;
import io.mpshare.policing.Snapshot.ProcessSample;
import io.mpshare.policing.Snapshot.Role;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.params.provider.Arguments.argumentSet;

class ActionPlannerTest {
    static final Allocation A = Fixtures.pod("a").build();
    static final ProcessSample C1 = VerdictEngineTest.client(101, 3000, A);
    static final ProcessSample C2 = VerdictEngineTest.client(102, 3000, A);
    static final Finding OVER = new OverLimit(A.podUid(), A.pod(), 0, 6000, 3328, List.of(C1, C2), List.of(C2, C1));
    static final Finding ROGUE_NON_CLIENT = new Rogue(A.podUid(), Optional.of(A.pod()), 0, VerdictEngineTest.nonClient(103, 900, A), Why.NOT_MPS_CLIENT);
    static final Finding ROGUE_CLIENT = new Rogue(A.podUid(), Optional.of(A.pod()), 1, VerdictEngineTest.client(104, 900, A), Why.NO_ALLOCATION_ON_GPU);
    static final Finding UNKNOWN = new Unknown(0, new ProcessSample(777, 100, Role.NOT_MPS, Optional.empty()));

    static Stream<Arguments> table() {
        return Stream.of(
                argumentSet("event: over limit is only reported", OVER, ActionPolicy.EVENT, List.of("report:over:uid-a:0")),
                argumentSet("event: rogue is only reported", ROGUE_NON_CLIENT, ActionPolicy.EVENT, List.of("report:rogue:0:103")),
                argumentSet("terminate: over limit ends each offender, largest first", OVER, ActionPolicy.TERMINATE,
                        List.of("report:over:uid-a:0", "terminate:0:102", "terminate:0:101")),
                argumentSet("terminate: rogue non-client is killed", ROGUE_NON_CLIENT, ActionPolicy.TERMINATE,
                        List.of("report:rogue:0:103", "kill:0:103")),
                argumentSet("terminate: rogue client is terminated through MPS", ROGUE_CLIENT, ActionPolicy.TERMINATE,
                        List.of("report:rogue:1:104", "terminate:1:104")),
                argumentSet("evict: over limit evicts the pod", OVER, ActionPolicy.EVICT, List.of("report:over:uid-a:0", "evict:uid-a")),
                argumentSet("evict: rogue evicts the pod", ROGUE_NON_CLIENT, ActionPolicy.EVICT, List.of("report:rogue:0:103", "evict:uid-a")),
                argumentSet("terminate: unknown is only reported", UNKNOWN, ActionPolicy.TERMINATE, List.of("report:unknown:0:777")),
                argumentSet("evict: unknown is only reported", UNKNOWN, ActionPolicy.EVICT, List.of("report:unknown:0:777")));
    }

    @ParameterizedTest
    @MethodSource("table")
    void plan_perPolicy(Finding f, ActionPolicy policy, List<String> keys) {
        assertThat(ActionPlanner.plan(List.of(f), policy)).extracting(Action::key).containsExactlyElementsOf(keys);
    }

    @ParameterizedTest
    @MethodSource("table")
    void plan_sameFindingTwice_plansOnce(Finding f, ActionPolicy policy, List<String> keys) {
        assertThat(ActionPlanner.plan(List.of(f, f), policy)).extracting(Action::key).containsExactlyElementsOf(keys);
    }

    @org.junit.jupiter.api.Test
    void plan_evict_twoFindingsOfOnePod_evictOnce() {
        assertThat(ActionPlanner.plan(List.of(OVER, ROGUE_NON_CLIENT), ActionPolicy.EVICT)).extracting(Action::key)
                .containsExactly("report:over:uid-a:0", "evict:uid-a", "report:rogue:0:103");
    }
}
