package io.mpshare.bench.openb;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongSupplier;

/**
 * The per-decision cost of {@link FragmentationBenchmark} as <em>CPU time</em> of the measuring thread,
 * for machines shared with other work, where JMH's wall-clock average measures the neighbours:
 * {@code java -cp ... io.mpshare.bench.openb.DecisionCpuTime [decisions]}.
 */
public final class DecisionCpuTime {
    private DecisionCpuTime() {}

    /** Operations timed in one run: each returns a value kept so the JIT cannot drop the work. */
    record Op(String name, LongSupplier call) {}

    /**
     * Calls every op {@code n} times (warm-up), then each op {@code n} times alone, and prints the thread CPU time per
     * call of each, in order: "fill F: name1 X us CPU/decision, name2 Y, ...".
     */
    static void time(String fill, int n, List<Op> ops) {
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        long sink = 0;
        for (int i = 0; i < n; i++) for (Op op : ops) sink += op.call().getAsLong();
        var each = new ArrayList<String>();
        for (Op op : ops) {
            long t0 = mx.getCurrentThreadCpuTime();
            for (int i = 0; i < n; i++) sink += op.call().getAsLong();
            each.add(String.format("%s %.1f us CPU/decision", op.name(), (mx.getCurrentThreadCpuTime() - t0) / 1e3 / n));
        }
        System.out.println("fill " + fill + ": " + String.join(", ", each) + " (" + n + " decisions, sink " + sink + ")");
    }

    public static void main(String[] args) {
        int decisions = args.length > 0 ? Integer.parseInt(args[0]) : 20_000;
        for (String fill : new String[] {"0.5", "0.9"}) {
            var b = new FragmentationBenchmark();
            b.fill = Double.parseDouble(fill);
            b.setUp();
            time(fill, decisions, List.of(new Op("decideWithHostCpu", b::decideWithHostCpu),
                    new Op("filterAndPrioritize", () -> b.filterAndPrioritize().size())));
        }
    }
}
