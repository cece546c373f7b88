package io.mpshare.scheduler.policy;

import io.mpshare.core.model.GpuDemand;
import io.mpshare.core.model.PodKey;
import io.mpshare.core.policy.TaskMix;
import org.junit.jupiter.api.Test;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The learned mix is replaced only when the window's mix moved more than the tolerance from the one in use: a steady
 * stream keeps one mix (and the scores the engine remembers under it), a stream that changes gets a new one, and
 * the mix in use is never further than the tolerance from the window's at any check.
 */
class LearnedMixToleranceTest {
    private static final int WINDOW = LearnedFragmentationPolicy.DEFAULT_WINDOW, EVERY = LearnedFragmentationPolicy.DEFAULT_REBUILD_EVERY;

    /** Pods of a few shapes in fixed proportions (2, 4, 8, 12 GiB; some with a core share; some over two GPUs). */
    private static GpuDemand steady(SplittableRandom r) {
        if (r.nextInt(20) == 0) return GpuDemand.simple(2 * 8 * 1024, 0, 2, 512);
        long[] gib = {2, 2, 2, 4, 4, 4, 8, 8, 12};
        return GpuDemand.simple(gib[r.nextInt(gib.length)] * 1024, r.nextInt(5) == 0 ? 30 : 0, 1, 512);
    }

    /** Feeds {@code n} pods from {@code source}; the number of times the mix in use changed. */
    private static int feed(LearnedFragmentationPolicy p, Deque<GpuDemand> window, int from, int n, java.util.function.Supplier<GpuDemand> source) {
        int changes = 0;
        for (int i = from; i < from + n; i++) {
            TaskMix before = p.current().mix();
            GpuDemand d = source.get();
            p.observe(PodKey.of("default", "p" + i), d);
            window.addLast(d);
            if (window.size() > WINDOW) window.removeFirst();
            if (p.current().mix() != before) changes++;
            if ((i + 1) % EVERY == 0) // a check: the mix in use is within the tolerance of the window's
                assertThat(p.current().mix().distance(TaskMix.ofDemands(window))).as("after pod %d", i)
                        .isLessThanOrEqualTo(LearnedFragmentationPolicy.DEFAULT_TOLERANCE + 1e-9);
        }
        return changes;
    }

    @Test void steadyStream_keepsItsMix_aShiftedOneGetsANewMix() {
        var r = new SplittableRandom(7);
        var tolerant = new LearnedFragmentationPolicy(false, new HostRoom(), LearnedFragmentationPolicy.PRIOR, WINDOW, EVERY);
        var eager = new LearnedFragmentationPolicy(false, new HostRoom(), LearnedFragmentationPolicy.PRIOR, WINDOW, EVERY, 0);
        Deque<GpuDemand> window = new ArrayDeque<>(), eagerWindow = new ArrayDeque<>();
        var seq = new SplittableRandom(7);

        int first = feed(tolerant, window, 0, 4 * WINDOW, () -> steady(r));
        int eagerFirst = feed(eager, eagerWindow, 0, 4 * WINDOW, () -> steady(seq));
        assertThat(eagerFirst).as("without a tolerance, a new mix at (nearly) every check").isGreaterThan(4 * WINDOW / EVERY * 9 / 10);
        assertThat(first).as("the prior replaced, then a few while the window fills").isBetween(2, 16);
        TaskMix settled = tolerant.current().mix();
        assertThat(feed(tolerant, window, 4 * WINDOW, 4 * WINDOW, () -> steady(r))).as("a full window later, the same stream").isLessThanOrEqualTo(1);

        // the stream changes: a 40 GiB shape comes in at a quarter of the pods
        int shifted = feed(tolerant, window, 8 * WINDOW, WINDOW, () -> r.nextInt(4) == 0 ? GpuDemand.simple(40 * 1024, 0, 1, 512) : steady(r));
        assertThat(shifted).isPositive();
        assertThat(tolerant.current().mix()).isNotSameAs(settled);
        assertThat(tolerant.current().mix().entries()).anySatisfy(e -> assertThat(e.mibPerGpu()).isEqualTo(40 * 1024 + 512));
    }

    @Test void firstLearnedMix_replacesThePrior_evenWhenClose() {
        var p = new LearnedFragmentationPolicy(false, new HostRoom(), LearnedFragmentationPolicy.PRIOR, WINDOW, EVERY, 0.99);
        for (int i = 0; i < EVERY; i++) p.observe(PodKey.of("default", "p" + i), GpuDemand.simple(8 * 1024, 0, 1, 512));
        assertThat(p.current().mix()).isNotSameAs(LearnedFragmentationPolicy.PRIOR);
        assertThat(p.current().mix().entries()).hasSize(1);
        for (int i = EVERY; i < 3 * EVERY; i++) p.observe(PodKey.of("default", "p" + i), GpuDemand.simple(4 * 1024, 0, 1, 512));
        assertThat(p.current().mix().entries()).as("within the tolerance of 0.99: kept").hasSize(1);
    }
}
