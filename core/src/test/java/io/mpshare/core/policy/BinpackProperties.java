package io.mpshare.core.policy;

import io.mpshare.core.ledger.Allocation;
import io.mpshare.core.ledger.Ledger;
import io.mpshare.core.ledger.NodeState;
import io.mpshare.core.ledger.Phase;
import io.mpshare.core.model.Gpu;
import io.mpshare.core.model.GpuDemand;
import io.mpshare.core.model.NodeInventory;
import io.mpshare.core.props.Props;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;

import static io.mpshare.core.CoreFixtures.*;
import static io.mpshare.core.props.Props.between;
import static io.mpshare.core.props.Props.listOf;
import static io.mpshare.core.props.Props.oneOf;
import static org.assertj.core.api.Assertions.assertThat;

/** Best fit and worst fit on random nodes: the choice is a fitting one and the tightest (or loosest) there is. */
class BinpackProperties {

    /** One GPU: its size, the share of it already booked (0..1000 ‰), its booked cores, and whether it is healthy. */
    record GpuSpec(long size, int usedPermille, int usedCore, boolean healthy) {}

    /** A pod asking {@code memGib} GiB and {@code core}% per GPU on {@code count} GPUs. */
    record DemandSpec(int memGib, int core, int count) {
        GpuDemand demand() { return io.mpshare.core.CoreFixtures.demand(memGib * 1024L * count, core * count, count); }
    }

    /** A node (built by {@link #build}) and a demand, as generated. */
    record Case(List<GpuSpec> gpus, DemandSpec demand, boolean spread) {}

    /** 1-8 GPUs of the four sizes, 0-1000 ‰ booked, cores 0 (2 in 5)/30/60/100, healthy 3 in 4. */
    static List<GpuSpec> nodes(SplittableRandom r) {
        return listOf(r, 1, 8, g -> new GpuSpec(oneOf(g, 24_576L, 46_068L, 81_920L, 143_771L), between(g, 0, 1000),
                oneOf(g, 0, 0, 30, 60, 100), oneOf(g, true, true, true, false)));
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

    /** 1-60 GiB and cores 0 (1 in 2)/10/30 per GPU, on 1-3 GPUs. */
    static DemandSpec demands(SplittableRandom r) {
        return new DemandSpec(between(r, 1, 60), oneOf(r, 0, 0, 10, 30), between(r, 1, 3));
    }

    static Case cases(SplittableRandom r) { return new Case(nodes(r), demands(r), r.nextBoolean()); }

    private static boolean fits(NodeState s, int p, GpuDemand d) {
        return s.usable(p) && s.freeMib(p) >= d.chargeMib() && s.freeCore(p) >= d.chargeCore();
    }

    @Test
    void binpack_chosenGpusAreTheTightestThatFit() {
        Props.check("BinpackProperties.binpack_chosenGpusAreTheTightestThatFit", 300, BinpackProperties::cases, c -> {
            NodeState s = build(c.gpus());
            GpuDemand d = c.demand().demand();
            checkChoice(s, d, new BinpackPolicy().evaluate(s, d), false);
        });
    }

    @Test
    void spread_chosenGpusAreTheLoosestThatFit() {
        Props.check("BinpackProperties.spread_chosenGpusAreTheLoosestThatFit", 300, BinpackProperties::cases, c -> {
            NodeState s = build(c.gpus());
            GpuDemand d = c.demand().demand();
            checkChoice(s, d, new SpreadPolicy().evaluate(s, d), true);
        });
    }

    @Test
    void scoreAndFits_agreeWithEvaluate() {
        Props.check("BinpackProperties.scoreAndFits_agreeWithEvaluate", 300, BinpackProperties::cases, c -> {
            NodeState s = build(c.gpus());
            GpuDemand d = c.demand().demand();
            PlacementPolicy p = c.spread() ? new SpreadPolicy() : new BinpackPolicy();
            Evaluation e = p.evaluate(s, d);
            long expected = e instanceof Evaluation.Fits f ? f.score() : PlacementPolicy.NO_FIT;
            assertThat(p.score(s, d)).as("score vs %s", e).isEqualTo(expected);
            assertThat(p.fits(s, d)).as("fits vs %s", e).isEqualTo(e instanceof Evaluation.Fits);
        });
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
