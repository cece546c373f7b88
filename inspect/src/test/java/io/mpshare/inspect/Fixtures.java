package io.mpshare.inspect;

import io.mpshare.core.codec.UsageCodec;
import io.mpshare.core.ledger.Allocation;
import io.mpshare.core.ledger.Phase;
import io.mpshare.core.model.Gpu;
import io.mpshare.core.model.GpuDemand;
import io.mpshare.core.model.NodeInventory;
import io.mpshare.core.model.PodKey;

import java.time.Instant;
import java.util.List;

/** A small cluster: node a with two H200s, node b with one T4, three pods. */
final class Fixtures {
    private Fixtures() {}

    static final Instant AT = Instant.parse("2026-11-30T03:00:00Z");

    static NodeInventory nodeA() {
        return new NodeInventory("gpu-a", List.of(new Gpu(0, "GPU-a0", "NVIDIA H200", 143_771, true), new Gpu(1, "GPU-a1", "NVIDIA H200", 143_771, true)));
    }

    static NodeInventory nodeB() { return new NodeInventory("gpu-b", List.of(new Gpu(0, "GPU-b0", "NVIDIA T4", 15_360, false))); }

    /** default/mps-sample: 7 GiB on gpu-a GPU 0, booked 7.5 GiB with the context reserve. */
    static Allocation sample() {
        return new Allocation(PodKey.of("default", "mps-sample"), "uid-1", "gpu-a", List.of(0), List.of("GPU-a0"),
                GpuDemand.simple(7168, 0, 1, 512), AT, Phase.ASSIGNED);
    }

    /** team/wide: 8 GiB over both GPUs of gpu-a (4 + 0.5 on each). */
    static Allocation wide() {
        return new Allocation(PodKey.of("team", "wide"), "uid-2", "gpu-a", List.of(0, 1), List.of("GPU-a0", "GPU-a1"),
                GpuDemand.simple(8192, 0, 2, 512), AT, Phase.BOUND);
    }

    static UsageCodec.PodUsage sampleUsage() {
        return new UsageCodec.PodUsage(AT, List.of(new UsageCodec.GpuUsage(0, 7680, 6144, 1)),
                List.of(new UsageCodec.ContainerUsage("mps-sample", 0, 6144, 1)));
    }
}
