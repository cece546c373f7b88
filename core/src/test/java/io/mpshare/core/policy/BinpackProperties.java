package io.mpshare.core.policy;

import io.mpshare.core.ledger.Allocation;
import io.mpshare.core.ledger.Ledger;
import io.mpshare.core.ledger.NodeState;
import io.mpshare.core.ledger.Phase;
import io.mpshare.core.model.Gpu;
import io.mpshare.core.model.GpuDemand;
import io.mpshare.core.model.NodeInventory;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import static io.mpshare.core.CoreFixtures.*;
import static org.assertj.core.api.Assertions.assertThat;

/** Best fit and worst fit on random nodes: the choice is a fitting one and the tightest (or loosest) there is. */
class BinpackProperties {

    /** One GPU: its size, the share of it already booked (0..1000 ‰), its booked cores, and whether it is healthy. */
    record GpuSpec(long size, int usedPermille, int usedCore, boolean healthy) {}

    @Provide
    Arbitrary<NodeState> nodes() {
        Arbitrary<GpuSpec> gpu = Combinators.combine(Arbitraries.of(24_576L, 46_068L, 81_920L, 143_771L),
                        Arbitraries.integers().between(0, 1000), Arbitraries.of(0, 0, 30, 60, 100), Arbitraries.of(true, true, true, false))
                .as(GpuSpec::new);
        return gpu.list().ofMinSize(1).ofMaxSize(8).map(BinpackProperties::build);
    }

    static NodeState build(List<GpuSpec> specs) {
        List<Gpu> gpus = new ArrayList<>();
        for (int i = 0; i < specs.size(); i++) gpus.add(new Gpu(i, "GPU-" + i, "GPU", specs.get(i).size(), specs.get(i).healthy()));
        Ledger l = new Ledger(new io.mpshare.core.MutableClock(T0), TTL);
        l.upsertNode(new NodeInventory("n", gpus));
        for (int i = 0; i < specs.size(); i++) {
            GpuSpec g = specs.get(i);
            long mib = g.size() * g.usedPermille() / 1000;
            if (mib == 0 && g.usedCore() == 0) continue;
            l.restore(new Allocation(key("used-" + i), "", "n", List.of(i), List.of("GPU-" + i),
                    GpuDemand.simple(Math.max(1, mib), g.usedCore(), 1, 0), T0, Phase.BOUND));
        }
        return l.node("n");
    }

    @Provide
    Arbitrary<GpuDemand> demands() {
        return Combinators.combine(Arbitraries.integers().between(1, 60), Arbitraries.of(0, 0, 10, 30), Arbitraries.integers().between(1, 3))
                .as((m, core, count) -> demand(m * 1024L * count, core * count, count));
    }

    private static boolean fits(NodeState s, int p, GpuDemand d) {
        return s.usable(p) && s.freeMib(p) >= d.chargeMib() && s.freeCore(p) >= d.chargeCore();
    }

    @Property(tries = 300)
    void binpack_chosenGpusAreTheTightestThatFit(@ForAll("nodes") NodeState s, @ForAll("demands") GpuDemand d) {
        checkChoice(s, d, new BinpackPolicy().evaluate(s, d), false);
    }

    @Property(tries = 300)
    void spread_chosenGpusAreTheLoosestThatFit(@ForAll("nodes") NodeState s, @ForAll("demands") GpuDemand d) {
        checkChoice(s, d, new SpreadPolicy().evaluate(s, d), true);
    }

    @Property(tries = 300)
    void scoreAndFits_agreeWithEvaluate(@ForAll("nodes") NodeState s, @ForAll("demands") GpuDemand d, @ForAll boolean spread) {
        PlacementPolicy p = spread ? new SpreadPolicy() : new BinpackPolicy();
        Evaluation e = p.evaluate(s, d);
        long expected = e instanceof Evaluation.Fits f ? f.score() : PlacementPolicy.NO_FIT;
        assertThat(p.score(s, d)).isEqualTo(expected);
        assertThat(p.fits(s, d)).isEqualTo(e instanceof Evaluation.Fits);
    }

    private static void checkChoice(NodeState s, GpuDemand d, Evaluation e, boolean loosest) {
        List<Integer> fitting = new ArrayList<>();
        for (int p = 0; p < s.gpuCount(); p++) if (fits(s, p, d)) fitting.add(p);
        if (!(e instanceof Evaluation.Fits f)) {
            assertThat(fitting.size()).as("refused although enough GPUs fit: %s", e).isLessThan(d.gpuCount());
            return;
        }
        Set<Integer> chosen = new HashSet<>();
        for (int p : f.positions()) chosen.add(p);
        assertThat(chosen).hasSize(d.gpuCount());
        assertThat(fitting).containsAll(chosen);
        for (int c : chosen)
            for (int o : fitting) {
                if (chosen.contains(o)) continue;
                if (loosest) assertThat(s.freeMib(c)).as("spread chose GPU %d over roomier %d", c, o).isGreaterThanOrEqualTo(s.freeMib(o));
                else assertThat(s.freeMib(c)).as("binpack left more free on GPU %d than on fitting GPU %d", c, o).isLessThanOrEqualTo(s.freeMib(o));
            }
    }
}
