package io.mpshare.bench.openb;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;

/**
 * The per-decision cost of {@link ExtenderDecisionBenchmark} as <em>CPU time</em> of the measuring thread, with
 * {@link FragmentationBenchmark#filterAndPrioritize} (the core's engine alone, GPU-only) as a baseline in the same
 * run: {@code java -cp bench/target/benchmarks.jar io.mpshare.bench.openb.ExtenderDecisionCpuTime [decisions]}.
 */
public final class ExtenderDecisionCpuTime {
    private ExtenderDecisionCpuTime() {}

    public static void main(String[] args) {
        java.util.logging.LogManager.getLogManager().reset(); // the cluster view logs every node it is offered
        int decisions = args.length > 0 ? Integer.parseInt(args[0]) : 5_000;
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        for (String fill : new String[] {"0.5", "0.9"}) {
            var b = new ExtenderDecisionBenchmark();
            b.fill = Double.parseDouble(fill);
            b.setUp();
            var core = new FragmentationBenchmark();
            core.fill = b.fill;
            core.setUp();
            long sink = 0;
            for (int i = 0; i < decisions; i++) sink += b.decide() + b.decideGpuOnly() + core.filterAndPrioritize().size(); // warm-up
            long t0 = mx.getCurrentThreadCpuTime();
            for (int i = 0; i < decisions; i++) sink += b.decide();
            long t1 = mx.getCurrentThreadCpuTime();
            for (int i = 0; i < decisions; i++) sink += b.decideGpuOnly();
            long t2 = mx.getCurrentThreadCpuTime();
            for (int i = 0; i < decisions; i++) sink += core.filterAndPrioritize().size();
            long t3 = mx.getCurrentThreadCpuTime();
            System.out.printf("fill %s: decide %.1f us CPU/decision, decideGpuOnly %.1f, core filterAndPrioritize %.1f (%d decisions, sink %d)%n",
                    fill, (t1 - t0) / 1e3 / decisions, (t2 - t1) / 1e3 / decisions, (t3 - t2) / 1e3 / decisions, decisions, sink);
        }
    }
}
