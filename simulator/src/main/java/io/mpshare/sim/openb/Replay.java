package io.mpshare.sim.openb;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * One replay of a task trace on a node list with one policy and one seed, the paper's "workload
 * inflation": the tasks are shuffled with the seed and arrive one by one, never leaving; once the trace is
 * used up, tasks are drawn from it at random (same seed) until the tasks that arrived ask {@code stopAt}
 * (1.30) of the cluster's GPU capacity. A task that fits nowhere fails and is skipped. The GPU allocation
 * ratio (placed GPU share / capacity) is recorded each time the arrived workload crosses another 1%.
 *
 * <p>The arrival order depends on the seed alone, so every policy sees the same tasks in the same order;
 * a policy that draws at random gets its own stream derived from the seed.
 */
public final class Replay {
    private Replay() {}

    /**
     * @param curve    curve[k] = allocation ratio once arrived GPU asks reached k% of capacity (k = 0..stop%)
     * @param ratio    allocation ratio at the end
     * @param arrived  tasks that arrived (CPU-only ones too)
     * @param failed   tasks that fitted nowhere
     * @param failedGpuAsk GPU share asked by failed tasks, thousandths of a GPU
     */
    public record Result(String trace, String policy, long seed, double[] curve, double ratio, int arrived, int failed,
                         long failedGpuAsk, long nanos) {}

    static Result run(String trace, String policyName, List<OpenbTrace.Node> nodes, List<OpenbTrace.Task> tasks,
                      ReplayPolicy policy, long seed, double stopAt) {
        long t0 = System.nanoTime();
        Cluster c = new Cluster(nodes, new SplittableRandom(seed ^ 0x6A09E667F3BCC909L));
        if (c.totalGpuMilli == 0) throw new IllegalArgumentException("the node list has no GPUs");
        SplittableRandom arrivals = new SplittableRandom(seed);
        SplittableRandom choices = new SplittableRandom(seed * 0x9E3779B97F4A7C15L + 1);
        List<OpenbTrace.Task> order = new ArrayList<>(tasks);
        for (int i = order.size() - 1; i > 0; i--) {
            int j = arrivals.nextInt(i + 1);
            OpenbTrace.Task tmp = order.get(i); order.set(i, order.get(j)); order.set(j, tmp);
        }
        int steps = (int) Math.round(stopAt * 100);
        double[] curve = new double[steps + 1];
        int recorded = 1; // curve[0] = 0
        double target = stopAt * c.totalGpuMilli;
        long arrivedAsk = 0;
        int arrived = 0, failed = 0;
        long failedAsk = 0;
        boolean anyGpu = tasks.stream().anyMatch(t -> t.numGpu() > 0);
        if (!anyGpu) throw new IllegalArgumentException("the task list has no GPU tasks; the replay stops on GPU workload");
        while (arrivedAsk < target) {
            OpenbTrace.Task t = arrived < order.size() ? order.get(arrived) : tasks.get(arrivals.nextInt(tasks.size()));
            arrived++;
            arrivedAsk += t.gpuAsk();
            ReplayPolicy.Placement p = policy.choose(c, t, choices);
            if (p == null) { failed++; failedAsk += t.gpuAsk(); }
            else { c.place(p.node(), t, p.gpus()); policy.placed(c, t, p); }
            double ratio = (double) c.placedGpuMilli / c.totalGpuMilli;
            while (recorded <= steps && arrivedAsk * 100 >= (long) recorded * c.totalGpuMilli) curve[recorded++] = ratio;
        }
        double ratio = (double) c.placedGpuMilli / c.totalGpuMilli;
        return new Result(trace, policyName, seed, curve, ratio, arrived, failed, failedAsk, System.nanoTime() - t0);
    }
}
