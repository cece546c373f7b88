package io.mpshare.sim.openb;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.TreeSet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Every (trace, policy, seed) replay of a comparison, spread over {@code threads} worker threads (each
 * replay is single-threaded and independent), and the per (trace, policy) statistics.
 */
public final class Experiment {
    private Experiment() {}

    /** A task list and the name it is reported under (e.g. "default" for openb_pod_list_default.csv). */
    public record Trace(String name, List<OpenbTrace.Task> tasks) {}

    public record Stats(String trace, Policies policy, int runs, double mean, double sd, double min, double max, double[] meanCurve) {}

    public record Outcome(List<Replay.Result> results, List<Stats> stats, long wallNanos, int threads, String machine) {}

    public static Outcome run(List<OpenbTrace.Node> nodes, GpuModels models, List<Trace> traces, List<Policies> policies,
                              List<Long> seeds, int threads, double stopAt) {
        var unknown = new TreeSet<String>(); // unknown models fail before any work, all named at once
        for (var n : nodes) {
            if (n.gpus() == 0) continue;
            try { models.mib(n.model()); } catch (IllegalArgumentException e) { unknown.add(n.model()); }
        }
        if (!unknown.isEmpty())
            throw new IllegalArgumentException("GPU model(s) " + unknown + " have no known memory size; give each with --gpu-mib MODEL=MIB"
                    + " (or --gpu-mib '*=MIB' for all unknown models). The replay works in shares of a GPU, so the size changes only rounding.");
        record Job(Trace trace, Policies policy, long seed) {}
        List<Job> jobs = new ArrayList<>();
        for (Trace t : traces) for (Policies p : policies) for (long s : seeds) jobs.add(new Job(t, p, s));
        // the costly policies first, so the last jobs are short and the threads finish together
        jobs.sort(Comparator.comparing((Job j) -> -j.policy().ordinal()));
        long t0 = System.nanoTime();
        List<Replay.Result> results = new ArrayList<>();
        try (ExecutorService pool = Executors.newFixedThreadPool(Math.max(1, threads))) {
            List<Future<Replay.Result>> futures = new ArrayList<>();
            for (Job j : jobs)
                futures.add(pool.submit(() -> Replay.run(j.trace().name(), j.policy().cliName, nodes, j.trace().tasks(),
                        j.policy().create(nodes, models, j.trace().tasks()), j.seed(), stopAt)));
            for (Future<Replay.Result> f : futures) results.add(f.get());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RuntimeException r) throw r;
            throw new IllegalStateException(e.getCause());
        }
        long wall = System.nanoTime() - t0;
        List<Stats> stats = new ArrayList<>();
        for (Trace t : traces) for (Policies p : policies) stats.add(stats(t.name(), p, results));
        String machine = Runtime.getRuntime().availableProcessors() + " CPU(s), Java " + Runtime.version();
        return new Outcome(results, stats, wall, threads, machine);
    }

    static Stats stats(String trace, Policies p, List<Replay.Result> results) {
        List<Replay.Result> rs = results.stream().filter(r -> r.trace().equals(trace) && r.policy().equals(p.cliName))
                .sorted(Comparator.comparingLong(Replay.Result::seed)).toList();
        int n = rs.size();
        double sum = 0, min = Double.MAX_VALUE, max = -Double.MAX_VALUE;
        for (var r : rs) { sum += r.ratio(); min = Math.min(min, r.ratio()); max = Math.max(max, r.ratio()); }
        double mean = sum / n, var = 0;
        for (var r : rs) var += (r.ratio() - mean) * (r.ratio() - mean);
        double[] curve = new double[rs.getFirst().curve().length];
        for (var r : rs) for (int k = 0; k < curve.length; k++) curve[k] += r.curve()[k] / n;
        return new Stats(trace, p, n, mean, n > 1 ? Math.sqrt(var / (n - 1)) : 0, min, max, curve);
    }
}
