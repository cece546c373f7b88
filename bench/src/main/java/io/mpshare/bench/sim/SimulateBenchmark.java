package io.mpshare.bench.sim;

import com.sun.management.OperatingSystemMXBean;
import io.mpshare.core.Names;
import io.mpshare.sim.ClusterShape;
import io.mpshare.sim.Progress;
import io.mpshare.sim.RunResult;
import io.mpshare.sim.Scenario;
import io.mpshare.sim.Simulation;
import io.mpshare.sim.model.Models;
import io.mpshare.sim.model.SharingModel;
import io.mpshare.sim.workload.DefaultWorkload;
import io.mpshare.sim.workload.Workload;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The simulate target: 100,000 pod arrivals on 1,000 nodes x 8 H200, all four policies
 * (each run twice: on the fixed cluster and elastic), in at most 20 s on 2 cores. A main()-style
 * benchmark (one run takes seconds, so JMH's machinery adds nothing): one warm-up run at a tenth of the
 * size, then {@code repeats} measured runs; prints each run's wall time, the best and the median.
 *
 * <pre>
 * mvn -B -q -pl bench -am install -DskipTests
 * java -cp "cli/target/mpshare.jar:bench/target/classes" io.mpshare.bench.sim.SimulateBenchmark [pods] [nodes] [threads] [repeats]
 * </pre>
 * Results go to docs/benchmarks.md, section "simulate".
 */
public final class SimulateBenchmark {
    private SimulateBenchmark() {}

    /** The four policies the target counts (the default run of mpshare simulate also has fragmentation, evaluated on every node). */
    static final List<String> FOUR = List.of("binpack", "spread", "slices", "whole");

    public static void main(String[] args) {
        int pods = args.length > 0 ? Integer.parseInt(args[0]) : 100_000;
        int nodes = args.length > 1 ? Integer.parseInt(args[1]) : 1_000;
        int threads = args.length > 2 ? Integer.parseInt(args[2]) : 2;
        int repeats = args.length > 3 ? Integer.parseInt(args[3]) : 3;
        System.out.printf(Locale.ROOT, "simulate benchmark: %,d pods, %,d nodes x 8 GPUs, %d threads, %d CPUs seen, %s%n",
                pods, nodes, threads, Runtime.getRuntime().availableProcessors(), Runtime.version());
        once(pods / 10, Math.max(1, nodes / 10), threads, "warm-up");
        List<Double> times = new ArrayList<>();
        for (int i = 0; i < repeats; i++) times.add(once(pods, nodes, threads, "run " + (i + 1)));
        times.sort(null);
        System.out.printf(Locale.ROOT, "best %.2f s, median %.2f s (target <= 20 s on 2 cores)%n", times.getFirst(), times.get(times.size() / 2));
    }

    private static final OperatingSystemMXBean OS =
            (OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();

    /**
     * One full simulation: workload generation plus all policies, fixed and elastic. Returns wall seconds.
     * Also prints the process's CPU seconds and the load average: on a shared machine the wall time
     * depends on the neighbours, the CPU time much less (CPU / threads is the wall time on idle cores).
     */
    static double once(int pods, int nodes, int threads, String label) {
        long t0 = System.nanoTime();
        long cpu0 = OS.getProcessCpuTime();
        var cluster = new ClusterShape(nodes, 8, ClusterShape.H200_MIB, "NVIDIA H200");
        // the default rate scaled with the cluster, so the load per GPU matches the default run's
        double rate = DefaultWorkload.DEFAULT_RATE_PER_HOUR * cluster.gpus() / ClusterShape.DEFAULT.gpus();
        Workload w = DefaultWorkload.generate(DefaultWorkload.Spec.ofPods(42, pods, rate));
        List<SharingModel> models = Models.of(FOUR, Names.DEFAULT_CONTEXT_RESERVE_MIB, Models.DEFAULT_SLICES);
        Simulation.Result r = Simulation.run(new Scenario(cluster, w, Scenario.DEFAULT_BACKFILL), models, Progress.NONE, threads);
        double s = (System.nanoTime() - t0) / 1e9;
        double cpu = (OS.getProcessCpuTime() - cpu0) / 1e9;
        StringBuilder b = new StringBuilder();
        for (var m : r.models()) {
            RunResult f = m.fixed();
            b.append(String.format(Locale.ROOT, "  %s: needs %,d GPUs, peak %,d in use, %,d waited", m.model().id(), m.gpusNeeded(), f.peakGpusInUse(), f.waited()));
        }
        System.out.printf(Locale.ROOT, "%-8s wall %6.2f s, cpu %6.2f s (cpu/%d = %.2f s), load average %.1f%n        %s%n",
                label, s, cpu, threads, cpu / threads, OS.getSystemLoadAverage(), b.toString().strip());
        return s;
    }
}
