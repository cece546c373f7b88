package io.mpshare.core.policy;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

class TaskMixTest {
    private static TaskMix.Entry e(long mib, int core, long cpu, double weight) { return new TaskMix.Entry(1, mib, 0, core, cpu, 0, weight); }

    @Test void distance_sameWeightsAnyOrder_zero() {
        var a = new TaskMix(List.of(e(2048, 0, 1000, 3), e(4096, 30, 1000, 1)));
        var b = new TaskMix(List.of(e(4096, 30, 1000, 2), e(2048, 0, 1000, 6))); // the same shares, other counts and order
        assertThat(a.distance(b)).isCloseTo(0, within(1e-12));
    }

    @Test void distance_weightMovedBetweenShapes_isTheWeightMoved() {
        var a = new TaskMix(List.of(e(2048, 0, 1000, 50), e(4096, 0, 1000, 50)));
        var b = new TaskMix(List.of(e(2048, 0, 1000, 40), e(4096, 0, 1000, 60)));
        assertThat(a.distance(b)).isCloseTo(0.10, within(1e-12));
        assertThat(b.distance(a)).isCloseTo(0.10, within(1e-12));
        // a new shape: the weight it took from the others
        var c = new TaskMix(List.of(e(2048, 0, 1000, 45), e(4096, 0, 1000, 45), e(8192, 0, 1000, 10)));
        assertThat(a.distance(c)).isCloseTo(0.10, within(1e-12));
    }

    @Test void distance_everyFieldButTheWeightNamesTheShape() {
        var a = new TaskMix(List.of(e(2048, 0, 1000, 1)));
        assertThat(a.distance(new TaskMix(List.of(e(2048, 0, 2000, 1))))).as("other CPU").isEqualTo(1.0);
        assertThat(a.distance(new TaskMix(List.of(e(2048, 30, 1000, 1))))).as("other cores").isEqualTo(1.0);
        assertThat(a.distance(new TaskMix(List.of(new TaskMix.Entry(2, 2048, 0, 0, 1000, 0, 1))))).as("other GPU count").isEqualTo(1.0);
    }
}
