package io.mpshare.core;

import io.mpshare.core.ledger.Allocation;
import io.mpshare.core.ledger.Ledger;
import io.mpshare.core.ledger.Phase;
import io.mpshare.core.model.ContainerRequest;
import io.mpshare.core.model.DemandResolver;
import io.mpshare.core.model.Gpu;
import io.mpshare.core.model.GpuDemand;
import io.mpshare.core.model.NodeInventory;
import io.mpshare.core.model.PodInfo;
import io.mpshare.core.model.PodKey;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;

/** Builders shared by the core's tests: nodes, pods, demands, and a ledger with a fake clock. */
public final class CoreFixtures {
    private CoreFixtures() {}

    public static final long H200_MIB = 143_771;
    /** The reserve the tables of the core tests are written for (not the product default, which may move). */
    public static final long RESERVE = 512;
    public static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");
    public static final Duration TTL = Duration.ofMinutes(5);

    /** A node whose GPU i has {@code sizesMib[i]} MiB, all healthy, UUIDs "GPU-node-i". */
    public static NodeInventory node(String name, long... sizesMib) {
        List<Gpu> gpus = new ArrayList<>();
        for (int i = 0; i < sizesMib.length; i++) gpus.add(new Gpu(i, "GPU-" + name + "-" + i, "NVIDIA H200", sizesMib[i], true));
        return new NodeInventory(name, gpus);
    }

    public static NodeInventory h200s(String name, int count) {
        long[] sizes = new long[count];
        java.util.Arrays.fill(sizes, H200_MIB);
        return node(name, sizes);
    }

    public static PodKey key(String name) { return PodKey.of("default", name); }

    /** The demand of a one-container pod asking {@code memMib} and {@code core}% over {@code count} GPUs, reserve 512 MiB. */
    public static GpuDemand demand(long memMib, int core, int count) {
        return demand(memMib, core, count, OptionalLong.empty());
    }

    public static GpuDemand demand(long memMib, int core, int count, OptionalLong uid) {
        var pod = new PodInfo(key("p"), "", List.of(ContainerRequest.app("main", memMib, core)), count, uid);
        return ((DemandResolver.Resolution.Resolved) new DemandResolver(RESERVE).resolve(pod)).demand();
    }

    public static GpuDemand gib(long gib) { return demand(gib * 1024, 0, 1); }

    /** A charge of exactly {@code mib} on one GPU (no reserve), for setting up free memory. */
    public static GpuDemand exact(long mib) { return GpuDemand.simple(mib, 0, 1, 0); }

    public static Ledger ledger(MutableClock clock, NodeInventory... nodes) {
        Ledger l = new Ledger(clock, TTL);
        for (NodeInventory n : nodes) l.upsertNode(n);
        return l;
    }

    public static Ledger ledger(NodeInventory... nodes) { return ledger(new MutableClock(T0), nodes); }

    /** Books {@code mib} on GPU {@code index} of {@code node} as a BOUND pod named {@code pod}, without a fit check. */
    public static void occupy(Ledger l, String node, int index, long mib, String pod) {
        l.restore(new Allocation(key(pod), "", node, List.of(index), List.of("GPU-" + node + "-" + index), exact(mib), T0, Phase.BOUND));
    }
}
