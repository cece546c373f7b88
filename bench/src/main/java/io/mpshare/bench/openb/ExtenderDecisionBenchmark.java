package io.mpshare.bench.openb;

import io.fabric8.kubernetes.api.model.Pod;
import io.mpshare.core.MemoryUnit;
import io.mpshare.core.Names;
import io.mpshare.core.codec.AllocationCodec;
import io.mpshare.core.isolation.FaultDomains;
import io.mpshare.core.isolation.FaultDomains.Kind;
import io.mpshare.core.ledger.Allocation;
import io.mpshare.core.ledger.Ledger;
import io.mpshare.core.ledger.Phase;
import io.mpshare.core.model.DemandResolver;
import io.mpshare.core.model.PodKey;
import io.mpshare.core.policy.PlacementEngine;
import io.mpshare.kube.KubePod;
import io.mpshare.kube.PodFacts;
import io.mpshare.scheduler.cluster.ClusterView;
import io.mpshare.scheduler.cycle.AskReader;
import io.mpshare.scheduler.cycle.PipelineHolds;
import io.mpshare.scheduler.policy.LearnedFragmentationPolicy;
import io.mpshare.scheduler.verbs.Verbs;
import io.mpshare.testing.Nodes;
import io.mpshare.testing.Pods;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

/**
 * One decision of the extender's default policy with host CPU and memory, through the extender's own objects:
 * {@link Verbs#filter} then {@link Verbs#prioritize} (with its pipelining hold, released after each
 * operation) of one pending pod over the openb cluster's 1,213 nodes (6,212 GPUs of the trace's models and
 * sizes, each node with its {@code status.allocatable} CPU and memory).
 *
 * <p>The cluster is filled through the same path until {@code fill} of its GPUs' memory is booked: each pod
 * (shares of 2-15 GiB, some with a core share, whole GPUs, 2- and 8-GPU pods, each with CPU and memory
 * requests) is offered as a pending Pod, filtered and prioritized, and then bound (the Pod offered again with
 * {@code spec.nodeName} and its allocation annotation), as the informers would show it; so the task mix is
 * learned from those pods (with their CPU and memory), and the host room counts their requests.
 *
 * <ul>
 *   <li>{@link #decide}: the default, with host CPU and memory;</li>
 *   <li>{@link #decideGpuOnly}: baseline in the same run: the same filter and prioritize with the same learned
 *       mix but without host CPU and memory (what the extender did before).</li>
 * </ul>
 * Target: at most 300 µs of CPU per decision. Run with {@code -prof io.mpshare.bench.CpuTimeProfiler}
 * on a shared machine.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
public class ExtenderDecisionBenchmark {
    /** Pods that fill the cluster: gpu-mem MiB per GPU, core percent (one-GPU pods), GPUs, CPU milli, memory MiB; drawn uniformly. */
    private static final long[][] PODS = {
            {15000, 100, 1, 12000, 49152}, {15000, 100, 1, 8000, 32768}, {12000, 0, 1, 11900, 47104}, {7000, 0, 1, 4000, 22888},
            {7000, 50, 1, 6000, 30517}, {4000, 30, 1, 3152, 5600}, {2000, 0, 1, 4000, 15258}, {15000, 100, 2, 24000, 98304},
            {15000, 100, 8, 88000, 327680}};

    /** Share of the cluster's GPU memory booked before measuring. */
    @Param({"0.5", "0.9"})
    public double fill;

    private final InstantSource clock = InstantSource.fixed(Instant.parse("2026-12-01T12:00:00Z"));
    private Ledger ledger;
    private LearnedFragmentationPolicy policy;
    private ClusterView view;
    private Verbs verbs, gpuOnly;
    private List<String> names;
    private PodFacts measured;
    private PodKey measuredKey;

    @Setup(Level.Trial)
    public void setUp() {
        ledger = new Ledger(clock, Duration.ofDays(1));
        policy = new LearnedFragmentationPolicy(false);
        // -Dbench.faultDomain=tenant: every namespace in tenant kind (the chart's default), so booked pods carry their
        // domain and prioritize weighs one more daemon per GPU; node (the default here): the path without fault domains
        Kind kind = Kind.parseOrThrow(System.getProperty("bench.faultDomain", "node"), "-Dbench.faultDomain");
        var asks = new AskReader(MemoryUnit.MIB, new DemandResolver(Names.DEFAULT_CONTEXT_RESERVE_MIB, MemoryUnit.MIB), ns -> FaultDomains.kindOf(ns, null, kind));
        view = new ClusterView(null, ledger, MemoryUnit.MIB, null, Duration.ofSeconds(30), policy::observe, p -> true, asks);
        view.addNodeHandler(policy.host().nodeEvents());
        view.addPodHandler(policy.host().podEvents());
        var engine = new PlacementEngine(ledger, policy);
        verbs = new Verbs(engine, asks, new PipelineHolds(engine, clock, Duration.ofSeconds(5)));
        names = new ArrayList<>();
        long totalMib = 0;
        for (Object[] s : FragmentationBenchmark.SHAPES) // the openb node list: count, GPUs, model, GPU MiB, CPU milli, memory MiB
            for (int k = 0; k < (int) s[0]; k++) {
                String name = String.format("openb-node-%04d", names.size());
                view.offer(Nodes.node(name).gpus((int) s[1], (long) s[3]).allocatable(s[4] + "m", s[5] + "Mi").build());
                names.add(name);
                totalMib += (int) s[1] * (long) s[3];
            }
        fillCluster((long) (fill * totalMib));
        Pod p = pod("measured", new long[] {4000, 30, 1, 4000, 16384});
        view.offer(KubePod.of(p));
        measured = KubePod.of(p).facts();
        measuredKey = KubePod.of(p).key();
        var plain = new PlacementEngine(ledger, policy.current()); // the same mix, no host CPU and memory
        gpuOnly = new Verbs(plain, asks, new PipelineHolds(plain, clock, Duration.ofSeconds(5)));
    }

    private void fillCluster(long targetMib) {
        SplittableRandom rnd = new SplittableRandom(42);
        long booked = 0;
        for (int n = 0, misses = 0; booked < targetMib && misses < 200; n++) {
            long[] shape = PODS[rnd.nextInt(PODS.length)];
            Pod p = pod("fill-" + n, shape);
            view.offer(KubePod.of(p));
            var facts = KubePod.of(p).facts();
            var fits = verbs.filter(verbs.ask(facts), names).fits();
            verbs.prioritize(verbs.ask(facts), fits);
            PodKey key = KubePod.of(p).key();
            var held = ledger.allocation(key);
            if (held.isEmpty()) { misses++; continue; }
            Allocation a = held.get();
            verbs.holds().claim(key);
            ledger.confirmBound(key, a.node());
            p.getSpec().setNodeName(a.node());
            p.getMetadata().setAnnotations(new LinkedHashMap<>(AllocationCodec.encode(a.withPhase(Phase.BOUND), MemoryUnit.MIB)));
            p.getStatus().setPhase("Running");
            view.offer(KubePod.of(p));
            booked += a.demand().chargeMib() * a.demand().gpuCount();
        }
    }

    private static Pod pod(String name, long[] s) {
        Pods b = Pods.pod(name).uid("uid-" + name).cpu(s[3] + "m").memory(s[4] + "Mi").gpuMem(s[0] * s[2]);
        if (s[2] > 1) b.gpuCount((int) s[2]); // memory only: a container's cores do not split into 100 percent on each
        else if (s[1] > 0) b.gpuCore((int) s[1]);
        return b.build();
    }

    /** Filter, then prioritize (which holds the top node's room), of one pod over all 1,213 nodes; the hold released. */
    @Benchmark
    public int decide() { return decide(verbs); }

    /** The same without host CPU and memory (baseline). */
    @Benchmark
    public int decideGpuOnly() { return decide(gpuOnly); }

    private int decide(Verbs v) {
        var fits = v.filter(v.ask(measured), names).fits(); // each verb call reads the pod's ask once, as the extender's do
        int n = v.prioritize(v.ask(measured), fits).scores().size();
        if (v.holds().claim(measuredKey)) ledger.release(measuredKey);
        return n;
    }
}
