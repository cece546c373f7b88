package io.mpshare.sim.openb;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeSet;

/**
 * The paper's Fragmentation Gradient Descent as its simulator scores it, for comparison with mpshare's
 * default. Typical tasks are the most frequent (CPU, GPU share, GPU count, GPU models) shapes that make up
 * 95% of all tasks (the configuration of the paper's experiments: CPU-only tasks included, shapes added one
 * at a time). A task's allowed models ({@code gpu_spec}) are part of its shape, so a constrained task and an
 * unconstrained one of the same size are different typical tasks. A node's fragmentation counts, per
 * typical task, the free GPU share it could not use: all of it when the node's model is not among the
 * task's models, when it lacks CPU or GPU room for the task, or for a CPU-only typical task; otherwise the
 * free share of the GPUs too small for it. The node score is
 * {@code int(100 * sigmoid((before - after) / 1000))}, ties as in {@link ReplayPolicy#argmax}; a share
 * goes on the GPU that scores best (first on ties).
 */
final class PaperFgd implements ReplayPolicy {
    /** Share of all tasks the typical tasks must cover (the paper's experiments: 95). */
    static final double COVERAGE = 0.95;

    /** One typical task: its shape, the models it may use (empty: any) and its weight (frequency share). */
    record Typical(long cpu, int milli, int count, Set<String> models, double weight) {
        Typical { models = Set.copyOf(models); }
    }

    private final long[] cpu;
    private final int[] milli;
    private final int[] count;
    private final double[] weight;
    private final List<Set<String>> models;
    private boolean[][] access;
    private int[][] fit;
    private int[][] low;
    private double[] cached;
    private boolean[] valid;

    PaperFgd(List<Typical> typical) {
        int n = typical.size();
        cpu = new long[n]; milli = new int[n]; count = new int[n]; weight = new double[n];
        models = new ArrayList<>(n);
        for (int e = 0; e < n; e++) {
            Typical t = typical.get(e);
            cpu[e] = t.cpu(); milli[e] = t.milli(); count[e] = t.count(); weight[e] = t.weight();
            models.add(t.models());
        }
    }

    /**
     * Typical tasks of a trace, as the paper's simulator picks them: count the tasks per shape (CPU, share per
     * GPU, GPU count, allowed models), sort by count, then shape, both descending, and take shapes one at a
     * time until they cover 95% of the tasks; weights are counts over the covered total.
     */
    static PaperFgd of(List<OpenbTrace.Task> tasks) { return new PaperFgd(typical(tasks)); }

    static List<Typical> typical(List<OpenbTrace.Task> tasks) {
        record Shape(long cpu, int milli, int count, String models) {}
        Map<Shape, Integer> counts = new LinkedHashMap<>();
        for (OpenbTrace.Task t : tasks)
            counts.merge(new Shape(t.cpuMilli(), t.milliPerGpu(), t.numGpu(), modelsKey(t)), 1, Integer::sum);
        List<Map.Entry<Shape, Integer>> sorted = new ArrayList<>(counts.entrySet());
        sorted.sort(Comparator.comparing((Map.Entry<Shape, Integer> e) -> e.getValue())
                .thenComparing(e -> e.getKey().cpu()).thenComparing(e -> e.getKey().milli())
                .thenComparing(e -> e.getKey().count()).thenComparing(e -> e.getKey().models()).reversed());
        double target = COVERAGE * tasks.size();
        int take = 0;
        double covered = 0;
        while (covered < target && take < sorted.size()) covered += sorted.get(take++).getValue();
        List<Typical> out = new ArrayList<>(take);
        for (int i = 0; i < take; i++) {
            Shape s = sorted.get(i).getKey();
            Set<String> allowed = s.models().isEmpty() ? Set.of() : Set.of(s.models().split("\\|"));
            out.add(new Typical(s.cpu(), s.milli(), s.count(), allowed, sorted.get(i).getValue() / covered));
        }
        return out;
    }

    /** The models a GPU task may use, sorted and joined by '|' (the paper's annotation); "" for any, and for CPU-only tasks. */
    static String modelsKey(OpenbTrace.Task t) {
        return t.numGpu() == 0 ? "" : String.join("|", new TreeSet<>(t.gpuSpec()));
    }

    int typicalCount() { return cpu.length; }

    /**
     * Expected free GPU share the typical tasks could not use on a node with {@code cpuLeft} CPU and
     * {@code left} thousandths free per GPU; {@code access[e]}: whether typical task {@code e} may use the
     * node's model.
     */
    double frag(long cpuLeft, int[] left, boolean[] access) {
        int total = 0;
        for (int l : left) total += l;
        double f = 0;
        for (int e = 0; e < cpu.length; e++) {
            if (milli[e] == 0 || !access[e] || cpuLeft < cpu[e]) { f += weight[e] * total; continue; }
            int fit = 0, low = 0;
            for (int l : left) { if (l >= milli[e]) fit++; else low += l; }
            f += weight[e] * (fit >= count[e] ? low : total);
        }
        return f;
    }

    /** Which typical tasks may use a node of this model. */
    boolean[] access(String model) {
        boolean[] a = new boolean[cpu.length];
        for (int e = 0; e < a.length; e++) a[e] = models.get(e).isEmpty() || models.get(e).contains(model);
        return a;
    }

    private boolean[] accessOf(Cluster c, int i) {
        if (access == null) {
            access = new boolean[c.size()][];
            Map<String, boolean[]> byModel = new LinkedHashMap<>();
            for (int k = 0; k < c.size(); k++) access[k] = byModel.computeIfAbsent(c.nodes.get(k).model(), this::access);
        }
        return access[i];
    }

    /** Per typical task, on node i as it stands: how many GPUs have its share free, and the free share of the others. */
    private void count(Cluster c, int i) {
        if (fit == null) { fit = new int[c.size()][]; low = new int[c.size()][]; cached = new double[c.size()]; valid = new boolean[c.size()]; }
        if (valid[i]) return;
        int[] left = c.gpuLeft[i], f = new int[cpu.length], w = new int[cpu.length];
        for (int e = 0; e < cpu.length; e++)
            for (int l : left) { if (l >= milli[e]) f[e]++; else w[e] += l; }
        fit[i] = f; low[i] = w;
        cached[i] = frag(c.cpuLeft[i], left, accessOf(c, i));
        valid[i] = true;
    }

    /**
     * {@link #frag} of node i after {@code k} of its GPUs go from {@code from} to {@code to} thousandths free
     * and its CPU to {@code cpuAfter}: the same sum as recomputing it, from the counts kept per node.
     */
    double fragAfter(Cluster c, int i, long cpuAfter, int k, int from, int to) {
        count(c, i);
        boolean[] acc = accessOf(c, i);
        int[] f = fit[i], w = low[i];
        int total = c.gpuLeftTotal(i) - k * (from - to);
        double sum = 0;
        for (int e = 0; e < cpu.length; e++) {
            int m = milli[e];
            if (m == 0 || !acc[e] || cpuAfter < cpu[e]) { sum += weight[e] * total; continue; }
            int fitAfter = f[e] + k * ((to >= m ? 1 : 0) - (from >= m ? 1 : 0));
            int lowAfter = w[e] + k * ((to < m ? to : 0) - (from < m ? from : 0));
            sum += weight[e] * (fitAfter >= count[e] ? lowAfter : total);
        }
        return sum;
    }

    static long score(double before, double after) {
        return (long) (100.0 / (1.0 + Math.exp(-(before - after) / 1000.0)));
    }

    @Override public Placement choose(Cluster c, OpenbTrace.Task t, SplittableRandom rnd) {
        int[] gpuOf = new int[c.size()];
        int node = ReplayPolicy.argmax(c, t, i -> {
            count(c, i);
            double b = cached[i];
            long cpuAfter = c.cpuLeft[i] - t.cpuMilli();
            int[] left = c.gpuLeft[i];
            if (t.sharing()) {
                long best = Long.MIN_VALUE;
                for (int g = 0; g < left.length; g++) {
                    if (left[g] < t.gpuMilli() || seenBefore(left, g)) continue; // equal GPUs score alike; the first wins
                    long s = score(b, fragAfter(c, i, cpuAfter, 1, left[g], left[g] - t.gpuMilli()));
                    if (s > best) { best = s; gpuOf[i] = g; }
                }
                return best;
            }
            return score(b, fragAfter(c, i, cpuAfter, t.numGpu(), 1000, 0)); // whole GPUs: fully free ones, or none
        });
        if (node < 0) return null;
        if (t.numGpu() == 0) return new Placement(node, new int[0]);
        return new Placement(node, t.sharing() ? new int[] {gpuOf[node]} : c.firstFree(node, t.numGpu()));
    }

    private static boolean seenBefore(int[] left, int g) {
        for (int h = 0; h < g; h++) if (left[h] == left[g]) return true;
        return false;
    }

    @Override public void placed(Cluster c, OpenbTrace.Task t, Placement p) {
        if (valid != null) valid[p.node()] = false;
    }

    @Override public String toString() { return "PaperFgd" + Arrays.toString(milli); }
}
