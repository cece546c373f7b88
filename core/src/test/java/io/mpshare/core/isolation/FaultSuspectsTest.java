package io.mpshare.core.isolation;

import io.mpshare.core.isolation.FaultSuspects.Policy;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Who is a suspect: present in 2 faults within 10 minutes (the default), held an hour after the last. */
class FaultSuspectsTest {
    static final Instant T0 = Instant.parse("2026-12-01T10:00:00Z");

    @Test void fault_oneFault_namesNobody() {
        var s = new FaultSuspects(Policy.DEFAULT);
        assertThat(s.fault(T0, List.of("a/Job/train", "a/Job/eval"))).isEmpty();
        assertThat(s.suspect("a/Job/train", T0)).isFalse();
    }

    @Test void fault_presentInTwoWithinTheWindow_suspect_theOthersNot() {
        var s = new FaultSuspects(Policy.DEFAULT);
        s.fault(T0, List.of("a/Job/culprit", "a/Job/bystander1"));
        List<String> named = s.fault(T0.plusSeconds(300), List.of("a/Job/culprit", "a/Job/bystander2"));
        assertThat(named).containsExactly("a/Job/culprit");
        assertThat(s.suspect("a/Job/culprit", T0.plusSeconds(301))).isTrue();
        assertThat(s.suspect("a/Job/bystander1", T0.plusSeconds(301))).isFalse();
    }

    @Test void fault_twoFaultsFurtherApartThanTheWindow_noSuspect() {
        var s = new FaultSuspects(Policy.DEFAULT);
        s.fault(T0, List.of("a/Pod/p"));
        assertThat(s.fault(T0.plus(Duration.ofMinutes(11)), List.of("a/Pod/p"))).isEmpty();
    }

    @Test void fault_onePodTwiceInOneFault_countsOnce() {
        var s = new FaultSuspects(Policy.DEFAULT);
        assertThat(s.fault(T0, List.of("a/Job/j", "a/Job/j"))).isEmpty();
    }

    @Test void suspect_heldAnHourAfterTheLastFault_thenForgotten() {
        var s = new FaultSuspects(Policy.DEFAULT);
        s.fault(T0, List.of("a/Job/j"));
        s.fault(T0.plusSeconds(60), List.of("a/Job/j"));
        assertThat(s.suspects(T0.plusSeconds(61))).containsEntry("a/Job/j", T0.plusSeconds(60).plus(Duration.ofHours(1)));
        // a suspect in a fault again (its own domain faulted) is held on from then
        assertThat(s.fault(T0.plus(Duration.ofMinutes(50)), List.of("a/Job/j"))).containsExactly("a/Job/j");
        assertThat(s.suspect("a/Job/j", T0.plus(Duration.ofMinutes(50)).plus(Duration.ofMinutes(59)))).isTrue();
        Instant after = T0.plus(Duration.ofMinutes(50)).plus(Duration.ofHours(1));
        assertThat(s.suspect("a/Job/j", after)).isFalse();
        assertThat(s.suspects(after)).isEmpty();
        assertThat(s.fault(after.plusSeconds(1), List.of("a/Job/j"))).as("an expired suspect needs two faults again").isEmpty();
    }

    @Test void restore_suspectPublishedByAnEarlierRun_heldUntilItsTime() {
        var s = new FaultSuspects(Policy.DEFAULT);
        s.restore("a/Job/j", T0.plusSeconds(100));
        assertThat(s.suspect("a/Job/j", T0)).isTrue();
        assertThat(s.suspect("a/Job/j", T0.plusSeconds(100))).isFalse();
    }

    @Test void policy_oneFaultIsNoEvidence_refused() {
        assertThatThrownBy(() -> new Policy(1, Duration.ofMinutes(10), Duration.ofHours(1))).hasMessageContaining("at least 2 faults");
    }
}
