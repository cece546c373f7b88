package io.mpshare.bench;

import io.mpshare.core.Names;
import io.mpshare.core.ledger.AssumeResult;
import io.mpshare.core.ledger.Ledger;
import io.mpshare.core.model.ContainerRequest;
import io.mpshare.core.model.DemandResolver;
import io.mpshare.core.model.Gpu;
import io.mpshare.core.model.GpuDemand;
import io.mpshare.core.model.NodeInventory;
import io.mpshare.core.model.PodInfo;
import io.mpshare.core.model.PodKey;
import io.mpshare.core.policy.BinpackPolicy;
import io.mpshare.core.policy.PlacementPolicy;

import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.Random;

/**
 * A cluster of {@code nodes} nodes × 8 H200 (143,771 MiB each) with {@code pods} pods already booked and
 * bound, drawn from a fixed-seed mix:
 * <ul>
 * <li>55 % small inference pods: 1–4 GiB, a third of them with 10 % cores;</li>
 * <li>30 % medium: 8–24 GiB;</li>
 * <li>12 % large: 32–80 GiB;</li>
 * <li>3 % two-GPU jobs: 2 × 32–64 GiB (label {@code aliyun.com/gpu-count: 2}).</li>
 * </ul>
 * Each pod goes to a random node where it fits (binpack picks the GPU), so the cluster is filled unevenly,
 * as a live one is. Every pod is charged the default 512 MiB context reserve per container.
 */
public final class PlacedCluster {
    public static final long H200_MIB = 143_771;
    public static final int GPUS_PER_NODE = 8;

    public final Ledger ledger;
    public final List<String> nodeNames;
    public final int placed;

    private PlacedCluster(Ledger ledger, List<String> nodeNames, int placed) {
        this.ledger = ledger;
        this.nodeNames = nodeNames;
        this.placed = placed;
    }

    public static PlacedCluster build(int nodes, int pods, long seed) {
        Ledger ledger = new Ledger(InstantSource.system(), Duration.ofMinutes(5));
        List<String> names = new ArrayList<>(nodes);
        for (int n = 0; n < nodes; n++) {
            String name = String.format("gpu-node-%05d", n);
            names.add(name);
            List<Gpu> gpus = new ArrayList<>();
            for (int g = 0; g < GPUS_PER_NODE; g++) gpus.add(new Gpu(g, "GPU-" + name + "-" + g, "NVIDIA H200", H200_MIB, true));
            ledger.upsertNode(new NodeInventory(name, gpus));
        }
        Random rnd = new Random(seed);
        DemandResolver resolver = new DemandResolver(Names.DEFAULT_CONTEXT_RESERVE_MIB);
        PlacementPolicy binpack = new BinpackPolicy();
        int placed = 0;
        for (int p = 0; p < pods; p++) {
            PodKey key = PodKey.of("bench", "pod-" + p);
            GpuDemand d = demand(resolver, key, rnd);
            for (int attempt = 0; attempt < 32; attempt++) {
                String node = names.get(rnd.nextInt(nodes));
                if (ledger.assume(key, "uid-" + p, node, d, binpack) instanceof AssumeResult.Assumed) {
                    ledger.confirmBound(key, node);
                    placed++;
                    break;
                }
            }
        }
        return new PlacedCluster(ledger, List.copyOf(names), placed);
    }

    private static GpuDemand demand(DemandResolver resolver, PodKey key, Random rnd) {
        int kind = rnd.nextInt(100);
        long gib;
        int core = 0, count = 1;
        if (kind < 55) { gib = 1 + rnd.nextInt(4); core = rnd.nextInt(3) == 0 ? 10 : 0; }
        else if (kind < 85) gib = 8 + rnd.nextInt(17);
        else if (kind < 97) gib = 32 + rnd.nextInt(49);
        else { count = 2; gib = 2L * (32 + rnd.nextInt(33)); }
        return resolve(resolver, key, gib * 1024, core, count);
    }

    /** The demand of a one-container pod, as the extender resolves it. */
    public static GpuDemand resolve(DemandResolver resolver, PodKey key, long mib, int core, int count) {
        var pod = new PodInfo(key, "", List.of(ContainerRequest.app("main", mib, core)), count, OptionalLong.empty());
        return ((DemandResolver.Resolution.Resolved) resolver.resolve(pod)).demand();
    }
}
