package io.mpshare.bench.sim;

import io.mpshare.core.Names;
import io.mpshare.core.policy.TaskMix;
import io.mpshare.sim.ClusterShape;
import io.mpshare.sim.Progress;
import io.mpshare.sim.Scenario;
import io.mpshare.sim.Simulation;
import io.mpshare.sim.model.Models;
import io.mpshare.sim.model.MpshareModel;
import io.mpshare.sim.model.SharingModel;
import io.mpshare.sim.workload.DefaultWorkload;
import io.mpshare.sim.workload.Workload;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;

/**
 * What a task mix a little off costs the default placement (docs/decisions/mix-tolerance.md): the built-in workload of
 * {@code mpshare simulate} placed by fragmentation gradient descent with the workload's own mix, and with mixes that
 * moved {@code distance} of their weight ({@link TaskMix#distance}) between shapes at random, as the extender's mix in
 * use may be off the window's by up to its tolerance. Prints the GPUs each run needed (the elastic cluster's peak).
 *
 * <pre>
 * mvn -B -q -pl bench -am install -DskipTests
 * java -cp "cli/target/mpshare.jar:bench/target/classes" io.mpshare.bench.sim.MixTolerance [seeds=42,7] [distances=0.05,0.1] [per distance=3]
 * </pre>
 */
public final class MixTolerance {
    private MixTolerance() {}

    public static void main(String[] args) {
        String[] seeds = (args.length > 0 ? args[0] : "42,7").split(",");
        String[] distances = (args.length > 1 ? args[1] : "0.05,0.1").split(",");
        int per = args.length > 2 ? Integer.parseInt(args[2]) : 3;
        for (String s : seeds) {
            long seed = Long.parseLong(s);
            Workload w = DefaultWorkload.generate(DefaultWorkload.Spec.ofPods(seed, DefaultWorkload.DEFAULT_PODS, DefaultWorkload.DEFAULT_RATE_PER_HOUR));
            TaskMix exact = Models.mix(w, Names.DEFAULT_CONTEXT_RESERVE_MIB);
            List<SharingModel> models = new ArrayList<>(List.of(MpshareModel.fragmentation(Names.DEFAULT_CONTEXT_RESERVE_MIB, exact)));
            List<String> labels = new ArrayList<>(List.of("the workload's mix"));
            SplittableRandom r = new SplittableRandom(seed);
            for (String d : distances)
                for (int k = 0; k < per; k++) {
                    TaskMix moved = moved(exact, Double.parseDouble(d), r);
                    models.add(MpshareModel.fragmentation(Names.DEFAULT_CONTEXT_RESERVE_MIB, moved));
                    labels.add(String.format(Locale.ROOT, "moved %.3f", moved.distance(exact)));
                }
            var result = Simulation.run(new Scenario(ClusterShape.DEFAULT, w, Scenario.DEFAULT_BACKFILL), models, Progress.NONE,
                    Runtime.getRuntime().availableProcessors());
            System.out.printf(Locale.ROOT, "seed %d (%d pods, %d shapes in the mix):%n", seed, w.pods().size(), exact.entries().size());
            for (int i = 0; i < models.size(); i++)
                System.out.printf(Locale.ROOT, "  %-20s %4d GPUs%n", labels.get(i), result.models().get(i).gpusNeeded());
        }
    }

    /** {@code mix} with {@code distance} of its weight moved from shape to shape at random (no shape below a tenth of its weight). */
    static TaskMix moved(TaskMix mix, double distance, SplittableRandom r) {
        List<TaskMix.Entry> es = new ArrayList<>(mix.entries());
        double left = distance;
        for (int tries = 0; left > 1e-12 && tries < 100_000; tries++) {
            int a = r.nextInt(es.size()), b = r.nextInt(es.size());
            double m = Math.min(left, es.get(a).weight() * 0.9);
            if (a == b || m <= 1e-9) continue;
            es.set(a, with(es.get(a), -m));
            es.set(b, with(es.get(b), m));
            left -= m;
        }
        return new TaskMix(es);
    }

    private static TaskMix.Entry with(TaskMix.Entry e, double add) {
        return new TaskMix.Entry(e.gpuCount(), e.mibPerGpu(), e.permillePerGpu(), e.corePerGpu(), e.cpuMilli(), e.memoryMib(), e.weight() + add);
    }
}
