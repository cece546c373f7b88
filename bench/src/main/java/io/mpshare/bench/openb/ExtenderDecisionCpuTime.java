package io.mpshare.bench.openb;

import java.util.List;
import java.util.logging.LogManager;

/**
 * The per-decision cost of {@link ExtenderDecisionBenchmark} as <em>CPU time</em> of the measuring thread, with
 * {@link FragmentationBenchmark#filterAndPrioritize} (the core's engine alone, GPU-only) as a baseline in the same
 * run: {@code java -cp bench/target/benchmarks.jar io.mpshare.bench.openb.ExtenderDecisionCpuTime [decisions]}.
 */
public final class ExtenderDecisionCpuTime {
    private ExtenderDecisionCpuTime() {}

    public static void main(String[] args) {
        LogManager.getLogManager().reset(); // the cluster view logs every node it is offered
        int decisions = args.length > 0 ? Integer.parseInt(args[0]) : 5_000;
        for (String fill : new String[] {"0.5", "0.9"}) {
            var b = new ExtenderDecisionBenchmark();
            b.fill = Double.parseDouble(fill);
            b.setUp();
            var core = new FragmentationBenchmark();
            core.fill = b.fill;
            core.setUp();
            DecisionCpuTime.time(fill, decisions, List.of(new DecisionCpuTime.Op("decide", b::decide),
                    new DecisionCpuTime.Op("decideGpuOnly", b::decideGpuOnly),
                    new DecisionCpuTime.Op("core filterAndPrioritize", () -> core.filterAndPrioritize().size())));
        }
    }
}
