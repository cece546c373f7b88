package io.mpshare.bench.openb;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;

/**
 * The per-decision cost of {@link FragmentationBenchmark} as <em>CPU time</em> of the measuring thread,
 * for machines shared with other work, where JMH's wall-clock average measures the neighbours:
 * {@code java -cp ... io.mpshare.bench.openb.DecisionCpuTime [decisions]}.
 */
public final class DecisionCpuTime {
    private DecisionCpuTime() {}

    public static void main(String[] args) {
        int decisions = args.length > 0 ? Integer.parseInt(args[0]) : 20_000;
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        for (String fill : new String[] {"0.5", "0.9"}) {
            var b = new FragmentationBenchmark();
            b.fill = Double.parseDouble(fill);
            b.setUp();
            long sink = 0;
            for (int i = 0; i < decisions; i++) sink += b.decideWithHostCpu() + b.filterAndPrioritize().size(); // warm-up
            long t0 = mx.getCurrentThreadCpuTime();
            for (int i = 0; i < decisions; i++) sink += b.decideWithHostCpu();
            long t1 = mx.getCurrentThreadCpuTime();
            for (int i = 0; i < decisions; i++) sink += b.filterAndPrioritize().size();
            long t2 = mx.getCurrentThreadCpuTime();
            System.out.printf("fill %s: decideWithHostCpu %.1f us CPU/decision, filterAndPrioritize %.1f us CPU/decision (%d decisions, sink %d)%n",
                    fill, (t1 - t0) / 1e3 / decisions, (t2 - t1) / 1e3 / decisions, decisions, sink);
        }
    }
}
