package io.mpshare.upgrade.plan;

import io.mpshare.core.model.PodKey;
import io.mpshare.upgrade.plan.UpgradeState.Mode;
import io.mpshare.upgrade.plan.UpgradeState.Phase;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class UpgradePlanTest {
    static final Instant T0 = Instant.parse("2026-11-30T05:00:00Z");
    static final DaemonPod BLUE = new DaemonPod("kube-system", "mps-blue-1", "blue", true, true, false, "img:1");
    static final DaemonPod GREEN_OLD = new DaemonPod("kube-system", "mps-green-1", "green", true, false, false, "img:1");
    static final DaemonPod GREEN_NEW = new DaemonPod("kube-system", "mps-green-2", "green", true, true, false, "img:2");
    static final DaemonPod GREEN_STARTING = new DaemonPod("kube-system", "mps-green-2", "green", false, true, false, "img:2");
    static final Client ON_BLUE = new Client(PodKey.of("default", "a"), Set.of("blue"), false);
    static final Client UNRECORDED = new Client(PodKey.of("default", "u"), Set.of(), false);
    static final Client ON_GREEN = new Client(PodKey.of("default", "g"), Set.of("green"), false);

    static final Map<String, String> BOTH = Map.of("blue", "img:1", "green", "img:2");

    final UpgradePlan plan = new UpgradePlan(new UpgradeOptions(T0.plus(Duration.ofMinutes(30)), Duration.ofMinutes(30), false, Duration.ofSeconds(10)));
    final UpgradePlan drainPlan = new UpgradePlan(new UpgradeOptions(T0.plus(Duration.ofMinutes(30)), Duration.ofMinutes(30), true, Duration.ofSeconds(10)));

    static NodeSnapshot snap(UpgradeState st, String active, List<DaemonPod> daemons, List<Client> clients, Instant now) {
        return new NodeSnapshot("n1", active, false, Optional.ofNullable(st), BOTH, daemons, clients, now);
    }

    static UpgradeState state(Phase p, Instant since) { return new UpgradeState(Mode.BLUE_GREEN, p, "blue", "green", since, false); }

    @Test void next_noState_recordsBlueGreenFromActive() {
        Step s = plan.next(snap(null, null, List.of(BLUE, GREEN_OLD), List.of(ON_BLUE), T0));
        assertThat(s).isInstanceOfSatisfying(Step.Record.class, r -> assertThat(r.state()).isEqualTo(state(Phase.STARTING, T0)));
    }

    @Test void next_idleTemplateRunsWhatActiveRuns_nothingToUpgrade() {
        var s = new NodeSnapshot("n1", null, false, Optional.empty(), Map.of("blue", "img:1", "green", "img:1"),
                List.of(BLUE, GREEN_OLD), List.of(ON_BLUE), T0);
        assertThat(plan.next(s)).isInstanceOfSatisfying(Step.Finish.class, f -> assertThat(f.summary()).contains("nothing to upgrade"));
    }

    @Test void next_idleOutdated_restartsIdleNeverActive() {
        Step s = plan.next(snap(state(Phase.STARTING, T0), "blue", List.of(BLUE, GREEN_OLD), List.of(ON_BLUE, UNRECORDED), T0));
        assertThat(s).isInstanceOfSatisfying(Step.RestartDaemon.class, r -> assertThat(r.pod()).isEqualTo(GREEN_OLD));
    }

    @Test void next_idleOutdatedWithClients_blocked() {
        Step s = plan.next(snap(state(Phase.STARTING, T0), "blue", List.of(BLUE, GREEN_OLD), List.of(ON_GREEN), T0));
        assertThat(s).isInstanceOf(Step.Blocked.class);
    }

    @Test void next_idleNotReady_waitsThenTimesOut() {
        var st = state(Phase.STARTING, T0);
        assertThat(plan.next(snap(st, "blue", List.of(BLUE, GREEN_STARTING), List.of(), T0))).isInstanceOf(Step.Wait.class);
        assertThat(plan.next(snap(st, "blue", List.of(BLUE, GREEN_STARTING), List.of(), T0.plus(Duration.ofHours(1))))).isInstanceOf(Step.TimedOut.class);
    }

    @Test void next_idleCurrentAndReady_switchesWithStateInOneStep() {
        Step s = plan.next(snap(state(Phase.STARTING, T0), "blue", List.of(BLUE, GREEN_NEW), List.of(ON_BLUE), T0));
        assertThat(s).isInstanceOfSatisfying(Step.Switch.class, sw -> {
            assertThat(sw.to()).isEqualTo("green");
            assertThat(sw.state().phase()).isEqualTo(Phase.SWITCHED);
        });
    }

    @Test void next_switchedWithOldClients_waitsAndDeletesNothing() {
        Step s = plan.next(snap(state(Phase.SWITCHED, T0), "green", List.of(BLUE, GREEN_NEW), List.of(ON_BLUE, UNRECORDED, ON_GREEN), T0.plusSeconds(60)));
        assertThat(s).isInstanceOfSatisfying(Step.Wait.class, w -> assertThat(w.reason()).contains("2 client(s)").contains("default/a").contains("default/u"));
    }

    @Test void next_switchedOldEmpty_settlesThenFinishes() {
        var st = state(Phase.SWITCHED, T0);
        assertThat(plan.next(snap(st, "green", List.of(BLUE, GREEN_NEW), List.of(ON_GREEN), T0.plusSeconds(5)))).isInstanceOf(Step.Wait.class);
        assertThat(plan.next(snap(st, "green", List.of(BLUE, GREEN_NEW), List.of(ON_GREEN), T0.plusSeconds(11))))
                .isInstanceOfSatisfying(Step.Finish.class, f -> assertThat(f.uncordon()).isFalse());
    }

    @Test void next_maxWaitPassed_timesOutWithoutDrain_drainsWithDrain() {
        Instant late = T0.plus(Duration.ofMinutes(31));
        var s = snap(state(Phase.SWITCHED, T0), "green", List.of(BLUE, GREEN_NEW), List.of(ON_BLUE), late);
        assertThat(plan.next(s)).isInstanceOf(Step.TimedOut.class);
        assertThat(drainPlan.next(s)).isInstanceOfSatisfying(Step.Record.class, r -> assertThat(r.state().phase()).isEqualTo(Phase.DRAINING));
    }

    @Test void next_draining_cordonsEvictsThenUncordons() {
        Instant late = T0.plus(Duration.ofMinutes(31));
        var st = state(Phase.DRAINING, late);
        assertThat(drainPlan.next(snap(st, "green", List.of(BLUE, GREEN_NEW), List.of(ON_BLUE), late))).isInstanceOf(Step.Cordon.class);
        var cordoned = new NodeSnapshot("n1", "green", true, Optional.of(st.withCordoned()), BOTH,
                List.of(BLUE, GREEN_NEW), List.of(ON_BLUE, ON_GREEN), late);
        assertThat(drainPlan.next(cordoned)).isInstanceOfSatisfying(Step.Evict.class, e -> assertThat(e.pods()).containsExactly(ON_BLUE.pod()));
        var drained = new NodeSnapshot("n1", "green", true, Optional.of(st.withCordoned()), BOTH,
                List.of(BLUE, GREEN_NEW), List.of(ON_GREEN), late);
        assertThat(drainPlan.next(drained)).isInstanceOfSatisfying(Step.Finish.class, f -> assertThat(f.uncordon()).isTrue());
    }

    @Test void next_noIdleDaemonSet_blockedWithoutDrain_inPlaceWithDrain() {
        var outdated = new DaemonPod("kube-system", "mps-blue-1", "blue", true, false, false, "img:1");
        var s = new NodeSnapshot("n1", null, false, Optional.empty(), Map.of("blue", "img:2"), List.of(outdated), List.of(ON_BLUE), T0);
        assertThat(plan.next(s)).isInstanceOf(Step.Blocked.class);
        assertThat(drainPlan.next(s)).isInstanceOfSatisfying(Step.Record.class, r -> assertThat(r.state().mode()).isEqualTo(Mode.IN_PLACE));
        var upToDate = new NodeSnapshot("n1", null, false, Optional.empty(), Map.of("blue", "img:1"), List.of(BLUE), List.of(ON_BLUE), T0);
        assertThat(drainPlan.next(upToDate)).isInstanceOfSatisfying(Step.Finish.class, f -> assertThat(f.summary()).contains("nothing to upgrade"));
    }

    @Test void next_inPlaceRestarting_deletesOutdatedActiveOnlyWhenDrained() {
        var st = new UpgradeState(Mode.IN_PLACE, Phase.RESTARTING, "blue", "blue", T0, true);
        var outdated = new DaemonPod("kube-system", "mps-blue-1", "blue", true, false, false, "img:1");
        var s = new NodeSnapshot("n1", null, true, Optional.of(st), Map.of("blue", "img:2"), List.of(outdated), List.of(), T0);
        assertThat(drainPlan.next(s)).isInstanceOf(Step.RestartDaemon.class);
        var back = new NodeSnapshot("n1", null, true, Optional.of(st), Map.of("blue", "img:2"), List.of(outdated), List.of(ON_BLUE), T0);
        assertThat(drainPlan.next(back)).isInstanceOf(Step.Record.class);
    }

    @Test void state_roundTrips_andMalformedSaysWhy() {
        var st = new UpgradeState(Mode.BLUE_GREEN, Phase.SWITCHED, "blue", "green", T0, true);
        assertThat(UpgradeState.decode(st.encode())).contains(st);
        assertThat(UpgradeState.decode(null)).isEmpty();
        assertThatThrownBy(() -> UpgradeState.decode("mode=sideways;phase=switched")).hasMessageContaining("unknown mode sideways");
    }
}
