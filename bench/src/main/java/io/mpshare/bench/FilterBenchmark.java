package io.mpshare.bench;

import io.mpshare.core.Names;
import io.mpshare.core.ledger.NodeState;
import io.mpshare.core.model.DemandResolver;
import io.mpshare.core.model.GpuDemand;
import io.mpshare.core.model.PodKey;
import io.mpshare.core.policy.BinpackPolicy;
import io.mpshare.core.policy.PlacementEngine;
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

import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The extender's hot path: filter (and filter + prioritize) of one 7 GiB pod over every node of a cluster of
 * 1k / 5k / 10k nodes × 8 H200 holding 40k placed pods, with {@link BinpackPolicy} through {@link PlacementEngine}.
 *
 * <p>{@link #baselineSnapshotRead} is the floor: the same loop over the node names that only reads each
 * node's snapshot from the ledger's map. Report filter time as a ratio to it, so figures from different
 * machines compare.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-Xms2g", "-Xmx2g"})
public class FilterBenchmark {

    @Param({"1000", "5000", "10000"})
    public int nodes;

    @Param({"40000"})
    public int pods;

    private PlacedCluster cluster;
    private PlacementEngine engine;
    private GpuDemand pod7GiB;
    private List<String> names;

    @Setup(Level.Trial)
    public void setUp() {
        cluster = PlacedCluster.build(nodes, pods, 42);
        engine = new PlacementEngine(cluster.ledger, new BinpackPolicy());
        pod7GiB = PlacedCluster.resolve(new DemandResolver(Names.DEFAULT_CONTEXT_RESERVE_MIB), PodKey.of("bench", "probe"), 7 * 1024, 0, 1);
        names = cluster.nodeNames;
        if (cluster.placed < pods * 99L / 100) throw new IllegalStateException("only " + cluster.placed + " of " + pods + " pods placed");
    }

    @Benchmark
    public PlacementEngine.FilterOutcome filter() {
        return engine.filter(pod7GiB, names);
    }

    @Benchmark
    public List<PlacementEngine.NodeScore> filterAndPrioritize() {
        var out = engine.filter(pod7GiB, names);
        return engine.prioritize(pod7GiB, out.fits());
    }

    @Benchmark
    public long baselineSnapshotRead() {
        long sum = 0;
        for (String name : names) {
            NodeState s = cluster.ledger.node(name);
            sum += s.maxFreeMib();
        }
        return sum;
    }
}
