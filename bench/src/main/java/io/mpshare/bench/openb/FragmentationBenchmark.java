package io.mpshare.bench.openb;

import io.mpshare.core.ledger.Ledger;
import io.mpshare.core.ledger.NodeState;
import io.mpshare.core.model.Gpu;
import io.mpshare.core.model.GpuDemand;
import io.mpshare.core.model.NodeInventory;
import io.mpshare.core.model.PodKey;
import io.mpshare.core.policy.Evaluation;
import io.mpshare.core.policy.FragmentationPolicy;
import io.mpshare.core.policy.PlacementEngine;
import io.mpshare.core.policy.TaskMix;
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
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

/**
 * One scheduling decision of mpshare's default policy at the size of the openb cluster: 1,213 nodes with
 * the trace's mix of GPU models and counts (6,212 GPUs), filled to {@code fill} of their GPU share by the
 * policy itself with shares and whole GPUs, then filter + score of one 0.47-GPU share over every node.
 * Target: at most 300 µs per decision on one core.
 *
 * <ul>
 *   <li>{@link #decideWithHostCpu}: what the replay does, one pass with each node's free CPU and memory (the default);</li>
 *   <li>{@link #filterAndPrioritize}: the extender's path through {@link PlacementEngine} (filter, then
 *       prioritize of the nodes that fit; the policy runs twice per node, and unfit nodes get their reason text).</li>
 * </ul>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
public class FragmentationBenchmark {
    /** The openb node list: how many nodes of each (GPU count, model, GPU MiB, CPU milli, host memory MiB). */
    static final Object[][] SHAPES = {
            {387, 2, "T4", 15109L, 104000L, 524288L}, {2, 1, "A10", 22731L, 128000L, 1048576L}, {39, 8, "G3", 32768L, 128000L, 786432L},
            {107, 2, "P100", 16280L, 16000L, 122880L}, {28, 4, "V100M16", 16160L, 32000L, 131072L}, {9, 4, "V100M32", 32510L, 48000L, 376832L},
            {22, 2, "P100", 16280L, 64000L, 262144L}, {7, 8, "V100M16", 16160L, 64000L, 262144L}, {19, 1, "V100M16", 16160L, 8000L, 32768L},
            {3, 1, "P100", 16280L, 8000L, 61440L}, {2, 2, "P100", 16280L, 8000L, 61440L}, {1, 8, "V100M16", 16160L, 82000L, 344064L},
            {17, 4, "T4", 15109L, 96000L, 393216L}, {549, 8, "G2", 32768L, 96000L, 393216L}, {21, 8, "V100M32", 32510L, 96000L, 786432L}};

    /** Share of the cluster's GPU capacity booked before measuring. */
    @Param({"0.5", "0.9"})
    public double fill;

    private FragmentationPolicy policy;
    private PlacementEngine engine;
    private Ledger ledger;
    private List<String> names;
    private NodeState[] states;
    private long[] cpuLeft;
    private long[] gpuMib;
    private long[] memLeft;
    private final int shareMilli = 470;

    @Setup(Level.Trial)
    public void setUp() {
        ledger = new Ledger(InstantSource.fixed(Instant.EPOCH), Duration.ofDays(1));
        names = new ArrayList<>();
        List<Long> cpu = new ArrayList<>(), mib = new ArrayList<>(), mem = new ArrayList<>();
        long gpus = 0;
        for (Object[] s : SHAPES) {
            for (int k = 0; k < (int) s[0]; k++) {
                String name = String.format("openb-node-%04d", names.size());
                List<Gpu> g = new ArrayList<>();
                for (int i = 0; i < (int) s[1]; i++) g.add(new Gpu(i, "GPU-" + name + "-" + i, (String) s[2], (long) s[3], true));
                ledger.upsertNode(new NodeInventory(name, g));
                names.add(name);
                cpu.add((long) s[4]);
                mem.add((long) s[5]);
                mib.add((long) s[3]);
                gpus += (int) s[1];
            }
        }
        // shapes like the default trace's commonest, with CPU (thousandths of a core), memory (MiB) and share
        // of GPU tasks; several CPU and memory levels, as a real mix has
        List<TaskMix.Entry> entries = new ArrayList<>();
        int[] shares = {1000, 810, 470, 320, 650, 250};
        double[] weights = {0.40, 0.15, 0.10, 0.05, 0.05, 0.05};
        for (int k = 0; k < shares.length; k++)
            for (int v = 0; v < 4; v++)
                entries.add(new TaskMix.Entry(1, 0, shares[k], 0, (4000L + 4000L * v) * shares[k] / 1000, (16384L + 16384L * v) * shares[k] / 1000, weights[k] / 4));
        entries.add(new TaskMix.Entry(2, 0, 1000, 0, 24000, 98304, 0.08));
        entries.add(new TaskMix.Entry(4, 0, 1000, 0, 48000, 196608, 0.06));
        entries.add(new TaskMix.Entry(8, 0, 1000, 0, 96000, 393216, 0.06));
        policy = new FragmentationPolicy(new TaskMix(entries));
        engine = new PlacementEngine(ledger, policy);
        cpuLeft = cpu.stream().mapToLong(Long::longValue).toArray();
        gpuMib = mib.stream().mapToLong(Long::longValue).toArray();
        memLeft = mem.stream().mapToLong(Long::longValue).toArray();
        fillCluster((long) (fill * gpus * 1000));
        states = new NodeState[names.size()];
        for (int i = 0; i < states.length; i++) states[i] = ledger.node(names.get(i));
    }

    private void fillCluster(long targetMilli) {
        SplittableRandom rnd = new SplittableRandom(42);
        int[] shares = {1000, 1000, 810, 470, 320, 650, 250};
        long placed = 0;
        for (int n = 0; placed < targetMilli && n < 100_000; n++) {
            int milli = shares[rnd.nextInt(shares.length)];
            long cpu = milli * 12L, mem = milli * 48L;
            int best = -1;
            long bestScore = Long.MIN_VALUE;
            for (int i = 0; i < names.size(); i++) {
                if (cpuLeft[i] < cpu || memLeft[i] < mem) continue;
                if (policy.evaluate(ledger.node(names.get(i)), demand(milli, gpuMib[i]), cpuLeft[i], cpu, memLeft[i], mem) instanceof Evaluation.Fits f
                        && f.score() > bestScore) { best = i; bestScore = f.score(); }
            }
            if (best < 0) continue;
            ledger.assume(PodKey.of("bench", "p" + n), "", names.get(best), demand(milli, gpuMib[best]), policy.forHost(cpuLeft[best], cpu, memLeft[best], mem));
            cpuLeft[best] -= cpu;
            memLeft[best] -= mem;
            placed += milli;
        }
    }

    static GpuDemand demand(int milli, long totalMib) {
        long mib = milli * totalMib / 1000;
        return GpuDemand.simple(mib, milli / 10, 1, 0);
    }

    /** The replay's decision: every node that has the CPU and memory, scored with its free CPU and memory; the best node. */
    @Benchmark
    public int decideWithHostCpu() {
        int best = -1;
        long bestScore = Long.MIN_VALUE, cpu = shareMilli * 12L, mem = shareMilli * 48L;
        for (int i = 0; i < states.length; i++) {
            if (cpuLeft[i] < cpu || memLeft[i] < mem) continue;
            if (policy.evaluate(states[i], demand(shareMilli, gpuMib[i]), cpuLeft[i], cpu, memLeft[i], mem) instanceof Evaluation.Fits f
                    && f.score() > bestScore) { best = i; bestScore = f.score(); }
        }
        return best;
    }

    /** The extender's filter, then prioritize of the nodes that fit (one GPU size: the G2 demand for all). */
    @Benchmark
    public List<PlacementEngine.NodeScore> filterAndPrioritize() {
        GpuDemand d = demand(shareMilli, 32768);
        var out = engine.filter(d, names);
        return engine.prioritize(d, out.fits());
    }
}
