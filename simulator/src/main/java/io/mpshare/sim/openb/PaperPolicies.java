package io.mpshare.sim.openb;

import java.util.Arrays;
import java.util.SplittableRandom;

/**
 * The paper's baselines (Weng et al., ATC'23, and its simulator), re-implemented from their definitions:
 * kube-scheduler semantics (integer node scores; ties as in {@link ReplayPolicy#argmax}), gpushare's GPU choice.
 */
final class PaperPolicies {
    private PaperPolicies() {}

    /** Largest node the paper normalises by: 128 cores, 8 GPUs. */
    static final double MAX_CPU_MILLI = 128_000, MAX_GPU_MILLI = 8_000;

    /** A uniformly random node among those that fit; a random GPU with room for a share, the first free ones for whole GPUs. */
    static final class Random implements ReplayPolicy {
        @Override public Placement choose(Cluster c, OpenbTrace.Task t, SplittableRandom rnd) {
            int node = -1, fitting = 0; // uniform among the nodes that fit
            for (int i = 0; i < c.size(); i++) if (c.fits(i, t) && rnd.nextInt(++fitting) == 0) node = i;
            if (node < 0) return null;
            if (t.numGpu() == 0) return new Placement(node, new int[0]);
            if (!t.sharing()) return new Placement(node, c.firstFree(node, t.numGpu()));
            int pick = -1, seen = 0;
            int[] left = c.gpuLeft[node];
            for (int g = 0; g < left.length; g++) if (left[g] >= t.gpuMilli() && rnd.nextInt(++seen) == 0) pick = g;
            return new Placement(node, new int[] {pick});
        }
    }

    /**
     * Best fit over CPU and GPU: node score {@code 100 * (1 - (0.5 * cpuLeftAfter / 128000 + 0.5 * gpuLeftAfter / 8000))},
     * truncated to an integer as the paper's plugin does; the share goes on the tightest GPU that fits.
     */
    static final class BestFit implements ReplayPolicy {
        @Override public Placement choose(Cluster c, OpenbTrace.Task t, SplittableRandom rnd) {
            int node = ReplayPolicy.argmax(c, t, i -> {
                double s = 0.5 * (c.cpuLeft[i] - t.cpuMilli()) / MAX_CPU_MILLI + 0.5 * (c.gpuLeftTotal(i) - t.gpuAsk()) / MAX_GPU_MILLI;
                return (long) ((1.0 - s) * 100);
            });
            return node < 0 ? null : gpusBestFit(c, node, t);
        }
    }

    /**
     * GPU packing: first nodes whose partly used GPUs take the share (fewer free thousandths on them first),
     * then nodes in use with whole free GPUs (fewer of them used first), then idle nodes (smaller first).
     */
    static final class GpuPacking implements ReplayPolicy {
        @Override public Placement choose(Cluster c, OpenbTrace.Task t, SplittableRandom rnd) {
            int node = ReplayPolicy.argmax(c, t, i -> t.numGpu() == 0 ? 0 : packingScore(c.gpuLeft[i], t));
            return node < 0 ? null : gpusBestFit(c, node, t);
        }

        static long packingScore(int[] left, OpenbTrace.Task t) {
            int fullyFree = 0;
            for (int l : left) if (l == 1000) fullyFree++;
            if (fullyFree == left.length) return Math.max(100 / 3 - fullyFree, fullyFree);
            Integer[] order = new Integer[left.length];
            for (int g = 0; g < left.length; g++) order[g] = g;
            Arrays.sort(order, (a, b) -> Integer.compare(left[a], left[b])); // stable: ties by index
            int want = t.numGpu(), freeUsed = 0;
            long freeRatioOnUsed = 0;
            for (int g : order) {
                if (want == 0) break;
                if (left[g] >= t.milliPerGpu()) {
                    want--;
                    if (left[g] == 1000) freeUsed++;
                    freeRatioOnUsed += left[g] * 100L / 1000;
                }
            }
            if (want != 0) return 0;
            if (freeUsed > 0) return Math.max(100 / 2 - freeUsed, 100 / 3);
            return Math.max(100 - freeRatioOnUsed / 10, 100 / 2);
        }
    }

    /**
     * Tetris's dot product, as the paper's DotProd (merged GPU dimension, normalised by the largest node):
     * node score {@code int(100 * (1 - (cpuLeft/128000 * cpu/128000 + gpuLeft/8000 * gpu/8000) / 2))} with the
     * node's free CPU and GPU share before the task and the task's ask; the tightest GPU that fits.
     */
    static final class DotProd implements ReplayPolicy {
        @Override public Placement choose(Cluster c, OpenbTrace.Task t, SplittableRandom rnd) {
            int node = ReplayPolicy.argmax(c, t, i -> score(c.cpuLeft[i], c.gpuLeftTotal(i), t));
            return node < 0 ? null : gpusBestFit(c, node, t);
        }

        static long score(long cpuLeft, int gpuLeft, OpenbTrace.Task t) {
            double dot = (cpuLeft / MAX_CPU_MILLI) * (t.cpuMilli() / MAX_CPU_MILLI) + (gpuLeft / MAX_GPU_MILLI) * (t.gpuAsk() / MAX_GPU_MILLI);
            return (long) (100 * (1 - dot / 2));
        }
    }

    /**
     * GPU clustering: a GPU task goes where tasks of its kind (a share, or k whole GPUs) already run: nodes
     * running only its kind score 75..100, nodes running its kind among others 50..75, idle nodes 25..50, nodes
     * running only other kinds 0..25; within a band, {@code 25 * (8000 - gpuLeft) / 8000} in integers (fuller
     * first). CPU-only tasks score 0 everywhere. The tightest GPU that fits.
     */
    static final class GpuClustering implements ReplayPolicy {
        private long[] kinds; // per node: bit k set when a task of kind k runs there (0: a share, k: k whole GPUs)

        @Override public Placement choose(Cluster c, OpenbTrace.Task t, SplittableRandom rnd) {
            if (kinds == null) kinds = new long[c.size()];
            int node = ReplayPolicy.argmax(c, t, i -> t.numGpu() == 0 ? 0 : score(kinds[i], c.gpuLeftTotal(i), kind(t)));
            return node < 0 ? null : gpusBestFit(c, node, t);
        }

        @Override public void placed(Cluster c, OpenbTrace.Task t, Placement p) {
            if (t.numGpu() > 0) kinds[p.node()] |= 1L << kind(t);
        }

        static int kind(OpenbTrace.Task t) { return t.sharing() ? 0 : Math.min(t.numGpu(), 63); }

        static long score(long kindsOnNode, int gpuLeft, int kind) {
            long fill = 25L * ((long) MAX_GPU_MILLI - gpuLeft) / (long) MAX_GPU_MILLI;
            if ((kindsOnNode & (1L << kind)) != 0) return fill + (Long.bitCount(kindsOnNode) == 1 ? 75 : 50);
            return fill + (kindsOnNode == 0 ? 25 : 0);
        }
    }

    /** gpushare's GPU choice: the tightest GPU that takes the share; the lowest-indexed free GPUs for whole ones. */
    static ReplayPolicy.Placement gpusBestFit(Cluster c, int node, OpenbTrace.Task t) {
        if (t.numGpu() == 0) return new ReplayPolicy.Placement(node, new int[0]);
        if (!t.sharing()) return new ReplayPolicy.Placement(node, c.firstFree(node, t.numGpu()));
        return new ReplayPolicy.Placement(node, new int[] {c.bestFitGpu(node, t.gpuMilli())});
    }
}
