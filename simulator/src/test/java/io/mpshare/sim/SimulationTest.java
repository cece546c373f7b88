package io.mpshare.sim;

import io.mpshare.sim.model.Models;
import io.mpshare.sim.workload.DefaultWorkload;
import io.mpshare.sim.workload.SimPod;
import io.mpshare.sim.workload.Workload;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class SimulationTest {
    private static final ClusterShape SMALL = new ClusterShape(8, 8, ClusterShape.H200_MIB, "NVIDIA H200");
    private static final long GIB = 1024, S = 1000;

    private static Workload mix(long seed, int pods) {
        return DefaultWorkload.generate(DefaultWorkload.Spec.ofPods(seed, pods, 60));
    }

    private static Simulation.Result run(Scenario sc, int threads) {
        return Simulation.run(sc, Models.of(Models.IDS, 512, 8, sc.workload()), Progress.NONE, threads);
    }

    @Test
    void run_everyPodPlacedOrRejected_nothingLeftQueued() {
        var pods = new java.util.ArrayList<>(mix(5, 600).pods());
        pods.add(new SimPod(600, 1_000, 60 * S, 200 * GIB, 0, 1, "trace"));      // larger than any GPU
        pods.add(new SimPod(601, 2_000, 60 * S, 7 * GIB, 0, 3, "trace"));        // 7 GiB does not split over 3 GPUs
        var r = run(new Scenario(SMALL, new Workload("t", pods), 16), 2);
        for (var m : r.models()) {
            for (RunResult f : List.of(m.fixed(), m.elastic())) {
                assertThat(f.placed() + f.rejected()).as(f.label()).isEqualTo(602);
                assertThat(f.waitsMs()).hasSize(f.placed());
                assertThat(f.series().queued()[f.series().size() - 1]).isZero();
            }
            assertThat(m.fixed().rejected()).as(m.model().label()).isEqualTo(2);
        }
        assertThat(r.model("binpack").fixed().rejectReasons()).containsKey("fits no node of this cluster even when empty")
                .hasEntrySatisfying("invalid request: container main asks 7168 MiB, which does not split evenly over 3 GPUs in whole MiB (aliyun.com/gpu-count): ask a multiple of 3 such as 7167 or 7170",
                        n -> assertThat(n).isEqualTo(1));
    }

    @Test
    void run_wholeGpuNeedsAtLeastAsManyGpusAsBinpack() {
        var r = run(new Scenario(SMALL, mix(11, 1500), 16), 2);
        int binpack = r.model("binpack").gpusNeeded(), whole = r.model("whole").gpusNeeded();
        assertThat(whole).isGreaterThanOrEqualTo(binpack);
        assertThat(binpack).isLessThan(whole / 2);
        assertThat(r.model("binpack").fixed().peakGpusInUse()).isLessThanOrEqualTo(SMALL.gpus());
        assertThat(r.model("binpack").elastic().waited()).isZero();
        assertThat(r.model("whole").elastic().waited()).isZero();
    }

    @Test
    void run_sameSeed_sameResults_whateverTheThreads() {
        var sc = new Scenario(SMALL, mix(3, 800), 16);
        var a = run(sc, 1);
        var b = run(sc, 3);
        for (int i = 0; i < a.models().size(); i++) {
            RunResult x = a.models().get(i).fixed(), y = b.models().get(i).fixed();
            assertThat(y.peakGpusInUse()).isEqualTo(x.peakGpusInUse());
            assertThat(y.waitsMs()).isEqualTo(x.waitsMs());
            assertThat(y.memUtilisation()).isEqualTo(x.memUtilisation());
            assertThat(y.series().gpusInUse()).isEqualTo(x.series().gpusInUse());
            assertThat(b.models().get(i).gpusNeeded()).isEqualTo(a.models().get(i).gpusNeeded());
        }
    }

    @Test
    void run_oneGpu_podsWaitInFifoOrder() {
        var one = new ClusterShape(1, 1, 80 * GIB, "GPU");
        var pods = List.of(new SimPod(0, 0, 10 * S, 60 * GIB, 0, 1, "a"), new SimPod(1, 0, 10 * S, 60 * GIB, 0, 1, "b"),
                new SimPod(2, 0, 10 * S, 60 * GIB, 0, 1, "c"));
        var r = Simulation.run(new Scenario(one, new Workload("t", pods), 0), Models.of(List.of("binpack"), 512, 8), Progress.NONE, 1);
        RunResult f = r.models().getFirst().fixed();
        assertThat(f.waitsMs()).containsExactly(0, 10 * S, 20 * S);
        assertThat(f.endMs()).isEqualTo(30 * S);
        assertThat(r.models().getFirst().elastic().gpus()).isEqualTo(3);
        assertThat(r.models().getFirst().gpusNeeded()).isEqualTo(3);
    }

    /**
     * Two tenants, one node of two GPUs, binpack: with one tenant every small pod packs onto GPU 0; with two, a tenant's
     * pod prefers the idle GPU over the other tenant's daemon, so each GPU serves one daemon.
     */
    @Test
    void run_tenants_podsGoWhereTheirDomainRuns_daemonsPerGpuCounted() {
        var two = new ClusterShape(1, 2, ClusterShape.H200_MIB, "NVIDIA H200");
        var pods = new java.util.ArrayList<SimPod>();
        for (int i = 0; i < 8; i++) pods.add(new SimPod(i, i, 100 * S, 4 * GIB, 0, 1, "small"));
        var w = new Workload("t", pods);
        RunResult one = Simulation.run(new Scenario(two, w, 0, 1), Models.of(List.of("binpack"), 512, 8), Progress.NONE, 1).models().getFirst().fixed();
        assertThat(one.peakGpusInUse()).isEqualTo(1);
        assertThat(one.meanDaemonsPerGpu()).isEqualTo(1.0);
        assertThat(one.peakDaemonsPerGpu()).isEqualTo(1);

        var sc = new Scenario(two, w, 0, 2);
        assertThat(pods.stream().map(p -> sc.tenantOf(p.id())).distinct()).as("both tenants have pods").hasSize(2);
        for (var m : Simulation.run(sc, Models.of(List.of("binpack", "fragmentation"), 512, 8, w), Progress.NONE, 1).models()) {
            RunResult tenants = m.fixed();
            assertThat(tenants.placed()).as(m.model().id()).isEqualTo(8);
            assertThat(tenants.peakGpusInUse()).as(m.model().id()).isEqualTo(2);
            assertThat(tenants.peakDaemonsPerGpu()).as(m.model().id()).isEqualTo(1);
            assertThat(tenants.meanDaemonsPerGpu()).as(m.model().id()).isEqualTo(1.0);
        }
    }

    @Test
    void run_backfill_letsSmallPodsPassAWaitingHead_strictFifoDoesNot() {
        var one = new ClusterShape(1, 1, 80 * GIB, "GPU");
        var pods = List.of(new SimPod(0, 0, 100 * S, 40 * GIB, 0, 1, "a"),   // runs
                new SimPod(1, 1, 10 * S, 60 * GIB, 0, 1, "big"),               // waits for pod 0
                new SimPod(2, 2, 10 * S, 10 * GIB, 0, 1, "small"));            // fits beside pod 0
        var strict = Simulation.run(new Scenario(one, new Workload("t", pods), 0), Models.of(List.of("binpack"), 512, 8), Progress.NONE, 1);
        var backfill = Simulation.run(new Scenario(one, new Workload("t", pods), 4), Models.of(List.of("binpack"), 512, 8), Progress.NONE, 1);
        // waits are sorted; strict: both wait for pod 0 to end at 100 s; backfill: the small pod goes at once
        assertThat(strict.models().getFirst().fixed().waitsMs()).containsExactly(0, 100 * S - 2, 100 * S - 1);
        assertThat(backfill.models().getFirst().fixed().waitsMs()).containsExactly(0, 0, 100 * S - 1);
    }

    @Test
    void run_fixedRunStandsForElastic_onlyWhenTheElasticRunDecidesTheSame() {
        var sc = new Scenario(SMALL, mix(21, 1200), 16);
        var reused = Simulation.run(sc, Models.of(Models.IDS, 512, 8, sc.workload()), Progress.NONE, 2, true);
        var full = Simulation.run(sc, Models.of(Models.IDS, 512, 8, sc.workload()), Progress.NONE, 2, false);
        int shortcuts = 0;
        for (int i = 0; i < full.models().size(); i++) {
            RunResult f = full.models().get(i).fixed();
            RunResult e = full.models().get(i).elastic();
            assertThat(reused.models().get(i).gpusNeeded()).as(f.label()).isEqualTo(e.peakGpusInUse());
            if (f.elasticEquivalent()) {
                shortcuts++;
                assertThat(f.waited()).isZero();
                assertThat(f.nodesUsed()).as(f.label()).isEqualTo(e.nodes());
                assertThat(f.series().gpusInUse()).isEqualTo(e.series().gpusInUse());
                assertThat(f.memUtilisation()).isEqualTo(e.memUtilisation());
            }
        }
        assertThat(full.model("binpack").fixed().elasticEquivalent()).isTrue();
        assertThat(full.model("spread").fixed().elasticEquivalent()).isFalse();
        assertThat(shortcuts).isGreaterThanOrEqualTo(2);
    }

    @Test
    void run_fragmentationPolicy_placesEveryPodWithFewerGpusThanWhole() {
        Workload w = mix(13, 600);
        var r = Simulation.run(new Scenario(SMALL, w, 16), Models.of(List.of("fragmentation", "whole"), 512, 8, w), Progress.NONE, 2);
        var frag = r.model("fragmentation");
        assertThat(frag.model().label()).isEqualTo("mpshare fragmentation (default)");
        assertThat(frag.fixed().placed() + frag.fixed().rejected()).isEqualTo(600);
        assertThat(frag.gpusNeeded()).isLessThan(r.model("whole").gpusNeeded());
    }

    @Test
    void run_utilisationAndStranded_withinBounds() {
        var r = run(new Scenario(SMALL, mix(8, 800), 16), 2);
        for (var m : r.models()) {
            RunResult f = m.fixed();
            assertThat(f.memUtilisation()).isBetween(0.0, 1.0);
            assertThat(f.memUtilisation() + f.reserveShare() + f.strandedShare()).isLessThanOrEqualTo(1.0 + 1e-9);
            assertThat(f.meanGpusInUse()).isLessThanOrEqualTo(f.peakGpusInUse());
        }
        assertThat(r.model("whole").fixed().reserveShare()).isZero();
        assertThat(r.model("binpack").fixed().memUtilisation()).isGreaterThan(r.model("whole").fixed().memUtilisation());
    }
}
