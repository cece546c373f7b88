package io.mpshare.sim.workload;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class DefaultWorkloadTest {
    @Test
    void generate_sameSeed_samePods() {
        var spec = DefaultWorkload.Spec.ofPods(42, 2000, 360);
        assertThat(DefaultWorkload.generate(spec)).isEqualTo(DefaultWorkload.generate(spec));
        assertThat(DefaultWorkload.generate(DefaultWorkload.Spec.ofPods(43, 2000, 360)).pods())
                .isNotEqualTo(DefaultWorkload.generate(spec).pods());
    }

    @Test
    void generate_mixAndRate_asDocumented() {
        Workload w = DefaultWorkload.generate(DefaultWorkload.Spec.ofPods(1, 20_000, 360));
        assertThat(w.size()).isEqualTo(20_000);
        long small = w.pods().stream().filter(p -> p.kind().equals("small")).count();
        long large = w.pods().stream().filter(p -> p.kind().equals("large")).count();
        assertThat(small / 20_000.0).isBetween(0.68, 0.72);
        assertThat(large / 20_000.0).isBetween(0.07, 0.09);
        assertThat(w.pods()).allSatisfy(p -> {
            assertThat(p.memMib() % (1024L * p.gpuCount())).isZero();
            assertThat(p.memMib() / p.gpuCount()).isBetween(1024L, 136 * 1024L);
            assertThat(p.durationMs()).isBetween(60_000L, 24 * 3_600_000L);
        });
        double hours = w.lastArrivalMs() / 3_600_000.0;
        assertThat(20_000 / hours).isBetween(340.0, 380.0);
    }

    @Test
    void generate_byDuration_stopsAtTheWindow() {
        Workload w = DefaultWorkload.generate(new DefaultWorkload.Spec(3, 0, 3_600_000, 600));
        assertThat(w.lastArrivalMs()).isLessThan(3_600_000);
        assertThat(w.size()).isBetween(500, 700);
    }
}
