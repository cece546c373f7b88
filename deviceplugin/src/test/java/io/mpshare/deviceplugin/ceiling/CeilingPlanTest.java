package io.mpshare.deviceplugin.ceiling;

import io.mpshare.core.MemoryUnit;
import io.mpshare.core.codec.AllocationCodec;
import io.mpshare.core.ledger.Allocation;
import io.mpshare.core.model.Gpu;
import io.mpshare.core.model.NodeInventory;
import io.mpshare.deviceplugin.testkit.TestPods;
import io.mpshare.kube.KubePod;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** The plan: the largest per-process cap booked on each GPU, rounded up to whole GiB; 1 GiB where nothing is booked. */
class CeilingPlanTest {
    static final NodeInventory INV = new NodeInventory("node-1", List.of(
            new Gpu(0, "GPU-0", "NVIDIA H200", 143771, true), new Gpu(1, "GPU-1", "NVIDIA H200", 143771, true),
            new Gpu(2, "GPU-2", "NVIDIA H200", 143771, true)));

    /** Reserve 512 MiB, as the case names say (the default is {@code Names.DEFAULT_CONTEXT_RESERVE_MIB}). */
    static Allocation booked(TestPods p) {
        return AllocationCodec.found(KubePod.of(p.on("node-1").reserve(512).build()).booking(INV, MemoryUnit.GIB)).orElseThrow();
    }

    record Case(String name, List<Allocation> booked, Map<Integer, Long> expected) {}

    @Test void desired_table() {
        List<Case> cases = List.of(
                new Case("nothing booked: the 1 GiB floor everywhere", List.of(), Map.of(0, 1024L, 1, 1024L, 2, 1024L)),
                new Case("7 GiB + 512 MiB reserve = 7680 MiB: 8 GiB", List.of(booked(TestPods.pod("a").mem("main", 7).placed(INV, 0))),
                        Map.of(0, 8192L, 1, 1024L, 2, 1024L)),
                new Case("2 GiB + reserve = 2560 MiB: 3 GiB, never the 2 GiB the daemon would cut 2560M to",
                        List.of(booked(TestPods.pod("a").mem("main", 2).placed(INV, 1))), Map.of(0, 1024L, 1, 3072L, 2, 1024L)),
                new Case("the largest cap on the GPU, not the sum", List.of(
                        booked(TestPods.pod("a").mem("main", 7).placed(INV, 0)), booked(TestPods.pod("b").mem("main", 3).placed(INV, 0))),
                        Map.of(0, 8192L, 1, 1024L, 2, 1024L)),
                new Case("two containers: each is its own client, the larger cap counts (3 GiB + reserve)", List.of(
                        booked(TestPods.pod("a").mem("main", 3).mem("side", 1).placed(INV, 2))), Map.of(0, 1024L, 1, 1024L, 2, 4096L)),
                new Case("gpu-count 2: 8 GiB split, 4 GiB + reserve on each", List.of(
                        booked(TestPods.pod("a").mem("main", 8).gpuCount(2).placed(INV, 0, 1))), Map.of(0, 5120L, 1, 5120L, 2, 1024L)),
                new Case("init container larger than the app", List.of(
                        booked(TestPods.pod("a").initMem("setup", 6).mem("main", 2).placed(INV, 0))), Map.of(0, 7168L, 1, 1024L, 2, 1024L)));
        for (Case c : cases) {
            assertThat(CeilingPlan.desired(c.booked(), List.of(0, 1, 2))).as(c.name()).isEqualTo(c.expected());
            for (Allocation a : c.booked())
                for (var share : a.demand().containers())
                    for (int g : a.gpuIndices())
                        assertThat(c.expected().get(g)).as(c.name() + ": never below a booked cap").isGreaterThanOrEqualTo(share.memMibPerGpu() + a.demand().reserveMib());
        }
    }
}
