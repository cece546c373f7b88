package io.mpshare.sim.openb;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * The paper's Fragmentation Gradient Descent as its simulator scores it, for comparison with mpshare's
 * default: typical tasks are the most frequent (CPU, GPU share, GPU count) shapes that make up 95% of all
 * tasks (the configuration of the paper's experiments: CPU-only tasks included, shapes added one at a time); a node's fragmentation counts, per typical task, the free GPU share it could not use (all of
 * it when the node lacks CPU or GPU room for that task); the node score is
 * {@code int(100 * sigmoid((before - after) / 1000))}, ties as in {@link ReplayPolicy#argmax}; a share goes on the GPU that
 * scores best (first on ties).
 */
final class PaperFgd implements ReplayPolicy {
    private final long[] cpu;
    private final int[] milli;
    private final int[] count;
    private final double[] weight;
    private double[] cached;
    private boolean[] valid;

    private PaperFgd(long[] cpu, int[] milli, int[] count, double[] weight) {
        this.cpu = cpu; this.milli = milli; this.count = count; this.weight = weight;
    }

    /** Typical tasks of a trace, as the paper's experiments pick them (top shapes covering 95% of the tasks, CPU-only ones included). */
    static PaperFgd of(List<OpenbTrace.Task> tasks) {
        Map<List<Long>, Integer> counts = new LinkedHashMap<>();
        int total = 0;
        for (OpenbTrace.Task t : tasks) {
            counts.merge(List.of(t.cpuMilli(), (long) t.milliPerGpu(), (long) t.numGpu()), 1, Integer::sum);
            total++;
        }
        List<Map.Entry<List<Long>, Integer>> sorted = new ArrayList<>(counts.entrySet());
        Comparator<Map.Entry<List<Long>, Integer>> byShape = Comparator.comparing((Map.Entry<List<Long>, Integer> e) -> e.getKey().get(0))
                .thenComparing(e -> e.getKey().get(1)).thenComparing(e -> e.getKey().get(2));
        sorted.sort(Comparator.comparing((Map.Entry<List<Long>, Integer> e) -> e.getValue()).thenComparing(byShape).reversed());
        double target = 0.95 * total;
        int take = 0;
        double cum = 0;
        while (cum < target && take < sorted.size()) {
            int upto = Math.min(sorted.size(), take + 1);
            for (; take < upto; take++) cum += sorted.get(take).getValue();
        }
        long[] c = new long[take];
        int[] m = new int[take], k = new int[take];
        double[] w = new double[take];
        for (int i = 0; i < take; i++) {
            var e = sorted.get(i);
            c[i] = e.getKey().get(0); m[i] = e.getKey().get(1).intValue(); k[i] = e.getKey().get(2).intValue();
            w[i] = e.getValue() / cum;
        }
        return new PaperFgd(c, m, k, w);
    }

    int typicalCount() { return cpu.length; }

    double frag(long cpuLeft, int[] left) {
        int total = 0;
        for (int l : left) total += l;
        double f = 0;
        for (int e = 0; e < cpu.length; e++) {
            int fit = 0, low = 0;
            for (int l : left) { if (l >= milli[e]) fit++; else low += l; }
            f += weight[e] * (milli[e] > 0 && cpuLeft >= cpu[e] && fit >= count[e] && left.length > 0 ? low : total);
        }
        return f;
    }

    private double before(Cluster c, int i) {
        if (cached == null) { cached = new double[c.size()]; valid = new boolean[c.size()]; }
        if (!valid[i]) { cached[i] = frag(c.cpuLeft[i], c.gpuLeft[i]); valid[i] = true; }
        return cached[i];
    }

    private static long score(double before, double after) {
        return (long) (100.0 / (1.0 + Math.exp(-(before - after) / 1000.0)));
    }

    @Override public Placement choose(Cluster c, OpenbTrace.Task t, SplittableRandom rnd) {
        int[] gpuOf = new int[c.size()];
        int node = ReplayPolicy.argmax(c, t, i -> {
            double b = before(c, i);
            long cpuAfter = c.cpuLeft[i] - t.cpuMilli();
            int[] left = c.gpuLeft[i].clone();
            if (t.sharing()) {
                long best = Long.MIN_VALUE;
                for (int g = 0; g < left.length; g++) {
                    if (left[g] < t.gpuMilli() || seenBefore(left, g)) continue; // equal GPUs score alike; the first wins
                    left[g] -= t.gpuMilli();
                    long s = score(b, frag(cpuAfter, left));
                    left[g] += t.gpuMilli();
                    if (s > best) { best = s; gpuOf[i] = g; }
                }
                return best;
            }
            for (int g : t.numGpu() == 0 ? new int[0] : c.firstFree(i, t.numGpu())) left[g] = 0;
            return score(b, frag(cpuAfter, left));
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
