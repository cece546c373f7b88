package io.mpshare.scheduler.bind;

import io.fabric8.kubernetes.api.model.Pod;
import io.mpshare.core.MemoryUnit;
import io.mpshare.core.codec.AllocationCodec;
import io.mpshare.core.ledger.Allocation;
import io.mpshare.core.ledger.Ledger;
import io.mpshare.core.ledger.NodeState;
import io.mpshare.core.ledger.Phase;
import io.mpshare.core.model.DemandResolver;
import io.mpshare.core.model.PodKey;
import io.mpshare.core.policy.BinpackPolicy;
import io.mpshare.core.policy.PlacementEngine;
import io.mpshare.kube.KubePod;
import io.mpshare.scheduler.TestClock;
import io.mpshare.scheduler.Wiring;
import io.mpshare.scheduler.verbs.Verbs;
import io.mpshare.testing.Nodes;
import io.mpshare.testing.Pods;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * 16 threads play kube-scheduler for 1,000 pods over 50 nodes: filter, pick a random fitting node (so
 * threads collide on nodes), bind; retry on a lost race. Afterwards: no GPU over-committed (by the ledger
 * and by the annotations on the pods), every pod either bound with its allocation or refused for lack of
 * room with no trace, and the ledger equals one rebuilt from the pods.
 */
class ConcurrentBindIT {
    static final int THREADS = 16, PODS = 1_000, NODES = 50, GPUS = 8;
    static final long GPU_MIB = 16_384;

    @Test void sixteenThreadsBindThousandPods_noOvercommit_noLostPods() throws Exception {
        var ledger = new Ledger(new TestClock(), Duration.ofMinutes(5));
        List<String> names = new ArrayList<>();
        for (int n = 0; n < NODES; n++) {
            names.add("node-" + n);
            ledger.upsertNode(Nodes.node("node-" + n).gpus(GPUS, GPU_MIB).inventory());
        }
        var verbs = Wiring.verbs(new PlacementEngine(ledger, new BinpackPolicy()));
        var api = new FakePodApi();
        var binder = Wiring.binder(verbs, api);
        var rnd = new Random(42);
        var queue = new ConcurrentLinkedQueue<PodKey>();
        for (int i = 0; i < PODS; i++) {
            var b = Pods.pod("p" + i).uid("uid-" + i).gpuMem(1 + rnd.nextInt(8));
            if (i % 10 == 0) b.gpuCount(2).gpuMem(2 * (1 + rnd.nextInt(4)));
            api.put(b.build());
            queue.add(PodKey.of("default", "p" + i));
        }
        // failures on the API side too: every 7th Binding answers 500 (the pod is retried, its room must come back)
        var bindings = new java.util.concurrent.atomic.AtomicInteger();
        api.beforeBind = () -> { if (bindings.incrementAndGet() % 7 == 0) api.bindFailures.incrementAndGet(); };

        var refused = ConcurrentHashMap.<PodKey>newKeySet();
        ExecutorService pool = Executors.newFixedThreadPool(THREADS);
        List<Future<?>> fs = new ArrayList<>();
        for (int t = 0; t < THREADS; t++) fs.add(pool.submit(() -> {
            PodKey k;
            while ((k = queue.poll()) != null) {
                boolean done = false;
                for (int attempt = 0; attempt < 50 && !done; attempt++) {
                    Pod pod = api.pod(k);
                    var fit = verbs.filter(verbs.ask(KubePod.of(pod).facts()), names).fits();
                    if (fit.isEmpty()) { refused.add(k); done = true; break; }
                    String node = fit.get(ThreadLocalRandom.current().nextInt(fit.size()));
                    if (binder.bind(k.namespace(), k.name(), KubePod.of(pod).uid(), node) instanceof BindOutcome.Bound) done = true;
                }
                assertThat(done).as("pod %s neither bound nor refused", k).isTrue();
            }
            return null;
        }));
        for (Future<?> f : fs) f.get();
        pool.shutdown();

        // zero over-commit, by the ledger
        for (NodeState s : ledger.nodes())
            for (int i = 0; i < s.gpuCount(); i++) assertThat(s.freeMib(i)).as("%s GPU %d", s.name(), i).isGreaterThanOrEqualTo(0);
        // zero lost pods: bound ⇔ annotated ⇔ booked (BOUND, same node); refused ⇒ no trace
        var rebuilt = new Ledger(new TestClock(), Duration.ofMinutes(5));
        for (int n = 0; n < NODES; n++) rebuilt.upsertNode(Nodes.node("node-" + n).gpus(GPUS, GPU_MIB).inventory());
        int bound = 0;
        for (Pod p : api.all().values()) {
            PodKey k = KubePod.of(p).key();
            String node = KubePod.of(p).nodeName();
            var ann = KubePod.of(p).annotations();
            if (node == null) {
                assertThat(refused).as("unbound pod %s was not refused", k).contains(k);
                assertThat(ann).isEmpty();
                assertThat(ledger.allocation(k)).isEmpty();
                continue;
            }
            bound++;
            var info = KubePod.of(p).facts().toPodInfo(MemoryUnit.GIB);
            var d = AllocationCodec.decode(info, ann, node, rebuilt.node(node).inventory(), true, MemoryUnit.GIB);
            assertThat(d).as("pod %s", k).isInstanceOf(AllocationCodec.Decoded.Found.class);
            Allocation fromApi = ((AllocationCodec.Decoded.Found) d).allocation();
            Allocation booked = ledger.allocation(k).orElseThrow();
            assertThat(booked.phase()).isEqualTo(Phase.BOUND);
            assertThat(booked.node()).isEqualTo(node);
            assertThat(booked.gpuIndices()).isEqualTo(fromApi.gpuIndices());
            rebuilt.restore(fromApi);
        }
        assertThat(bound + refused.size()).isEqualTo(PODS);
        assertThat(bound).isGreaterThan(PODS / 2);
        assertThat(rebuilt.accounting()).isEqualTo(ledger.accounting());
        for (NodeState s : rebuilt.nodes())
            for (int i = 0; i < s.gpuCount(); i++) assertThat(s.freeMib(i)).isGreaterThanOrEqualTo(0);

        // binding the same pods again, concurrently, is answered idempotently
        Map<PodKey, String> someBound = new HashMap<>();
        for (Pod p : api.all().values()) if (KubePod.of(p).nodeName() != null && someBound.size() < 64) someBound.put(KubePod.of(p).key(), KubePod.of(p).nodeName());
        var again = Executors.newFixedThreadPool(THREADS);
        List<Future<BindOutcome>> outs = new ArrayList<>();
        for (var e : someBound.entrySet()) for (int r = 0; r < 2; r++)
            outs.add(again.submit(() -> binder.bind(e.getKey().namespace(), e.getKey().name(), "", e.getValue())));
        for (var f : outs) assertThat(f.get()).isInstanceOfSatisfying(BindOutcome.Bound.class, b -> assertThat(b.already()).isTrue());
        again.shutdown();
        assertThat(ledger.accounting()).isEqualTo(rebuilt.accounting());
    }
}
