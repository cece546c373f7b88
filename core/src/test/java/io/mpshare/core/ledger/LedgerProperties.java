package io.mpshare.core.ledger;

import io.mpshare.core.MemoryUnit;
import io.mpshare.core.MutableClock;
import io.mpshare.core.codec.AllocationCodec;
import io.mpshare.core.model.ContainerRequest;
import io.mpshare.core.model.DemandResolver;
import io.mpshare.core.model.GpuDemand;
import io.mpshare.core.model.NodeInventory;
import io.mpshare.core.model.PodInfo;
import io.mpshare.core.model.PodKey;
import io.mpshare.core.policy.BinpackPolicy;
import io.mpshare.core.policy.PlacementPolicy;
import io.mpshare.core.policy.SpreadPolicy;
import io.mpshare.core.props.Props;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Random;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;

import static io.mpshare.core.CoreFixtures.*;
import static io.mpshare.core.props.Props.between;
import static io.mpshare.core.props.Props.listOf;
import static io.mpshare.core.props.Props.oneOf;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Ledger invariants over random sequences of operations on small heterogeneous clusters:
 * no GPU is over-committed (also under concurrent writers), release restores exactly, and a rebuild
 * from the pod annotations equals the live ledger.
 */
class LedgerProperties {
    private static final long[] SIZES = {24_576, 46_068, 81_920, 143_771};
    private static final int PODS = 12;

    /** kind 0-2 assume, 3 release, 4 confirm bound, 5 mark assigned. */
    record Op(int kind, int pod, int node, int memGib, int core, int count) {}

    /** 1-3 nodes of 1-4 GPUs each, sizes from {@link #SIZES} (MiB); built by {@link #cluster}. */
    static List<List<Long>> clusters(SplittableRandom r) {
        return listOf(r, 1, 3, g -> listOf(g, 1, 4, x -> oneOf(x, SIZES[0], SIZES[1], SIZES[2], SIZES[3])));
    }

    static List<NodeInventory> cluster(List<List<Long>> sizes) {
        List<NodeInventory> out = new ArrayList<>();
        for (int i = 0; i < sizes.size(); i++) out.add(node("n" + i, sizes.get(i).stream().mapToLong(Long::longValue).toArray()));
        return out;
    }

    /** 0-60 operations: kind 0-5, pod 0-11, node 0-2, 1-80 GiB, cores 0/10/20/50, over 1 (3 in 4) or 2 GPUs. */
    static List<Op> ops(SplittableRandom r) {
        return listOf(r, 0, 60, g -> new Op(between(g, 0, 5), between(g, 0, PODS - 1), between(g, 0, 2), between(g, 1, 80),
                oneOf(g, 0, 10, 20, 50), oneOf(g, 1, 1, 1, 2)));
    }

    static PodInfo podInfo(int i, int memGib, int core, int count) {
        OptionalLong uid = i % 3 == 0 ? OptionalLong.empty() : OptionalLong.of(1000 + (i % 2) * 1000L);
        return new PodInfo(key("pod-" + i), "uid-" + i, List.of(ContainerRequest.app("main", memGib * 1024L, core)), count, uid);
    }

    static GpuDemand demandOf(Op op) {
        var r = new DemandResolver(RESERVE).resolve(podInfo(op.pod(), op.memGib(), op.core(), op.count()));
        return ((DemandResolver.Resolution.Resolved) r).demand();
    }

    static void apply(Ledger l, List<NodeInventory> cluster, Op op, PlacementPolicy policy) {
        String node = cluster.get(op.node() % cluster.size()).node();
        PodKey pod = key("pod-" + op.pod());
        switch (op.kind()) {
            case 0, 1, 2 -> l.assume(pod, "uid-" + op.pod(), node, demandOf(op), policy);
            case 3 -> l.release(pod);
            case 4 -> l.allocation(pod).ifPresent(a -> l.confirmBound(pod, a.node()));
            default -> l.allocation(pod).ifPresent(a -> l.markAssigned(pod, a.node()));
        }
    }

    static Ledger fresh(List<NodeInventory> cluster) {
        Ledger l = new Ledger(new MutableClock(T0), Duration.ofMinutes(5));
        cluster.forEach(l::upsertNode);
        return l;
    }

    /** No GPU holds more than its memory or 100% cores, and each node's charges equal its bookings in the pod index. */
    static void assertSound(Ledger l) {
        for (NodeState s : l.nodes()) {
            long[] mib = new long[s.gpuCount()];
            int[] core = new int[s.gpuCount()];
            for (Allocation a : l.allocations()) {
                if (!a.node().equals(s.name())) continue;
                assertThat(s.pods()).containsEntry(a.pod(), a);
                for (int idx : a.gpuIndices()) { mib[s.position(idx)] += a.demand().chargeMib(); core[s.position(idx)] += a.demand().chargeCore(); }
            }
            assertThat(s.pods().size()).isEqualTo(l.allocations().stream().filter(a -> a.node().equals(s.name())).count());
            for (int p = 0; p < s.gpuCount(); p++) {
                assertThat(s.allocatedMib(p)).as("%s GPU %d over-committed", s.name(), p).isLessThanOrEqualTo(s.totalMib(p));
                assertThat(s.allocatedCore(p)).as("%s GPU %d cores", s.name(), p).isLessThanOrEqualTo(100);
                assertThat(s.allocatedMib(p)).as("%s GPU %d charge vs bookings", s.name(), p).isEqualTo(mib[p]);
                assertThat(s.allocatedCore(p)).isEqualTo(core[p]);
            }
        }
    }

    static Map<String, List<Integer>> cores(Ledger l) {
        var m = new TreeMap<String, List<Integer>>();
        for (NodeState s : l.nodes()) {
            List<Integer> c = new ArrayList<>();
            for (int p = 0; p < s.gpuCount(); p++) c.add(s.allocatedCore(p));
            m.put(s.name(), c);
        }
        return m;
    }

    static Map<PodKey, Allocation> bookings(Ledger l) {
        var m = new HashMap<PodKey, Allocation>();
        for (Allocation a : l.allocations()) m.put(a.pod(), a);
        return m;
    }

    record Sequence(List<List<Long>> cluster, List<Op> ops, boolean spread) {}

    @Test
    void assumeAndRelease_anySequence_noGpuOverCommitted() {
        Props.check("LedgerProperties.assumeAndRelease_anySequence_noGpuOverCommitted", 200,
                r -> new Sequence(clusters(r), ops(r), r.nextBoolean()), c -> {
            List<NodeInventory> cluster = cluster(c.cluster());
            Ledger l = fresh(cluster);
            PlacementPolicy policy = c.spread() ? new SpreadPolicy(true) : new BinpackPolicy(true);
            for (Op op : c.ops()) {
                apply(l, cluster, op, policy);
                assertSound(l);
            }
        });
    }

    record Probes(List<List<Long>> cluster, List<Op> ops, List<Op> probes) {}

    @Test
    void release_afterAssume_restoresExactly() {
        Props.check("LedgerProperties.release_afterAssume_restoresExactly", 200,
                r -> new Probes(clusters(r), ops(r), ops(r)), c -> {
            List<NodeInventory> cluster = cluster(c.cluster());
            Ledger l = fresh(cluster);
            PlacementPolicy policy = new BinpackPolicy();
            for (Op op : c.ops()) apply(l, cluster, op, policy);
            for (Op probe : c.probes()) {
                var accounting = l.accounting();
                var cores = cores(l);
                var bookings = bookings(l);
                String node = cluster.get(probe.node() % cluster.size()).node();
                var r = l.assume(key("probe"), "uid-probe", node, demandOf(probe), policy);
                if (r instanceof AssumeResult.Assumed) {
                    assertThat(l.release(key("probe"))).isPresent();
                }
                assertThat(l.accounting()).as("accounting after %s", probe).isEqualTo(accounting);
                assertThat(cores(l)).as("cores after %s", probe).isEqualTo(cores);
                assertThat(bookings(l)).as("bookings after %s", probe).isEqualTo(bookings);
            }
        });
    }

    record Rebuild(List<List<Long>> cluster, List<Op> ops, boolean mib) {}

    @Test
    void rebuildFromAnnotations_equalsLiveLedger() {
        Props.check("LedgerProperties.rebuildFromAnnotations_equalsLiveLedger", 200,
                r -> new Rebuild(clusters(r), ops(r), r.nextBoolean()), c -> {
            List<NodeInventory> cluster = cluster(c.cluster());
            Ledger live = fresh(cluster);
            Map<PodKey, PodInfo> podInfos = new HashMap<>();
            for (Op op : c.ops()) {
                apply(live, cluster, op, new BinpackPolicy());
                if (op.kind() <= 2) podInfos.put(key("pod-" + op.pod()), podInfo(op.pod(), op.memGib(), op.core(), op.count()));
            }
            MemoryUnit unit = c.mib() ? MemoryUnit.MIB : MemoryUnit.GIB;
            Map<String, NodeInventory> inventories = new HashMap<>();
            cluster.forEach(n -> inventories.put(n.node(), n));

            Ledger rebuilt = fresh(cluster);
            for (Allocation a : live.allocations()) {
                Map<String, String> ann = AllocationCodec.encode(a, unit);
                boolean bound = a.phase() != Phase.ASSUMED;
                var decoded = AllocationCodec.decode(podInfos.get(a.pod()), ann, bound ? a.node() : null,
                        inventories.get(a.node()), bound, unit);
                rebuilt.restore(AllocationCodec.found(decoded).orElseThrow(() -> new AssertionError(decoded)));
            }

            assertThat(rebuilt.accounting()).isEqualTo(live.accounting());
            assertThat(cores(rebuilt)).isEqualTo(cores(live));
            assertThat(bookings(rebuilt)).isEqualTo(bookings(live));
        });
    }

    /**
     * Several writers assume, confirm and release the same few pods on two small nodes at once, while a
     * reader checks every snapshot it sees. No snapshot may over-commit a GPU; the end state must be sound.
     */
    @Test
    void concurrentWriters_fewNodes_noGpuOverCommitted() {
        Props.check("LedgerProperties.concurrentWriters_fewNodes_noGpuOverCommitted", 15,
                SplittableRandom::nextLong, LedgerProperties::concurrentWriters);
    }

    static void concurrentWriters(long seed) throws Exception {
        List<NodeInventory> cluster = List.of(node("n0", 24_576, 24_576), node("n1", 46_068));
        Ledger l = fresh(cluster);
        int writers = 4;
        ExecutorService pool = Executors.newFixedThreadPool(writers + 1);
        AtomicBoolean done = new AtomicBoolean();
        try {
            CountDownLatch start = new CountDownLatch(1);
            List<Future<?>> futures = new ArrayList<>();
            for (int t = 0; t < writers; t++) {
                Random rnd = new Random(seed + t);
                PlacementPolicy policy = t % 2 == 0 ? new BinpackPolicy() : new SpreadPolicy();
                futures.add(pool.submit(() -> {
                    start.await();
                    for (int i = 0; i < 400; i++) {
                        var op = new Op(rnd.nextInt(6), rnd.nextInt(PODS), rnd.nextInt(2), 1 + rnd.nextInt(12),
                                10 * rnd.nextInt(4), 1 + rnd.nextInt(2));
                        apply(l, cluster, op, policy);
                    }
                    return null;
                }));
            }
            Future<?> reader = pool.submit(() -> {
                start.await();
                while (!done.get()) {
                    for (NodeState s : l.nodes())
                        for (int p = 0; p < s.gpuCount(); p++) {
                            if (s.allocatedMib(p) > s.totalMib(p)) throw new AssertionError("over-committed: " + s);
                            if (s.allocatedCore(p) > 100) throw new AssertionError("cores over 100%: " + s);
                        }
                    Thread.onSpinWait();
                }
                return null;
            });
            start.countDown();
            for (Future<?> f : futures) f.get();
            done.set(true);
            reader.get();
        } finally {
            done.set(true);
            pool.shutdownNow();
        }
        assertSound(l);
    }
}
