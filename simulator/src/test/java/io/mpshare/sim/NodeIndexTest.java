package io.mpshare.sim;

import io.mpshare.core.ledger.AssumeResult;
import io.mpshare.core.ledger.Ledger;
import io.mpshare.core.model.GpuDemand;
import io.mpshare.core.model.PodKey;
import io.mpshare.core.policy.Evaluation;
import io.mpshare.core.policy.PlacementEngine;
import io.mpshare.sim.model.Models;
import io.mpshare.sim.model.SharingModel;
import io.mpshare.sim.workload.DefaultWorkload;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;

/** The index's pruned choice must be the core's: bestNode over every node (or the first fitting node for FIRST_FIT). */
class NodeIndexTest {

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"fragmentation", "binpack", "spread", "slices", "whole"})
    void select_randomPlacementsAndReleases_sameNodeAsTheCoreOverAllNodes(String id) {
        SharingModel model = Models.of(id, 512, 8, DefaultWorkload.generate(DefaultWorkload.Spec.ofPods(3, 400, 60))); // fragmentation's mix
        var shape = new ClusterShape(24, 4, 81_920, "GPU");
        var ledger = new Ledger(InstantSource.fixed(Instant.EPOCH), Duration.ofMinutes(5));
        var engine = new PlacementEngine(ledger, model.policy());
        var index = new NodeIndex(ledger, model, shape, shape.nodes());
        List<String> names = new ArrayList<>();
        for (int i = 0; i < shape.nodes(); i++) names.add(index.name(index.addNode()));
        var rnd = new SplittableRandom(7);
        List<PodKey> live = new ArrayList<>();
        int placedCount = 0, checks = 0;
        for (int step = 0; step < 4000; step++) {
            if (!live.isEmpty() && rnd.nextInt(3) == 0) {
                PodKey gone = live.remove(rnd.nextInt(live.size()));
                var a = ledger.release(gone).orElseThrow();
                index.refresh(names.indexOf(a.node()));
                continue;
            }
            int count = rnd.nextInt(10) == 0 ? 2 : 1;
            long mib = (1 + rnd.nextInt(rnd.nextBoolean() ? 8 : 60)) * 1024L * count;
            int core = rnd.nextInt(4) == 0 ? 10 * count * (1 + rnd.nextInt(3)) : 0;
            GpuDemand d = GpuDemand.simple(mib, core, count, model.reserveMib());
            int chosen = index.select(d);
            String expected = model.search() == SharingModel.Search.FIRST_FIT ? firstFit(ledger, model, names, d) : engine.bestNode(d, names);
            assertThat(chosen < 0 ? null : index.name(chosen)).as("step %d, demand %s", step, d).isEqualTo(expected);
            checks++;
            if (chosen < 0) continue;
            PodKey key = PodKey.of("t", "p" + step);
            assertThat(engine.assume(key, "", index.name(chosen), d)).isInstanceOf(AssumeResult.Assumed.class);
            index.refresh(chosen);
            live.add(key);
            placedCount++;
        }
        assertThat(placedCount).isGreaterThan(1000);
        assertThat(checks).isGreaterThan(2000);
    }

    private static String firstFit(Ledger ledger, SharingModel model, List<String> names, GpuDemand d) {
        for (String n : names) if (model.policy().evaluate(ledger.node(n), d) instanceof Evaluation.Fits) return n;
        return null;
    }
}
