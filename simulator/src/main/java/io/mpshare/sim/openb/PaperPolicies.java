package io.mpshare.sim.openb;

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
            java.util.Arrays.sort(order, (a, b) -> Integer.compare(left[a], left[b])); // stable: ties by index
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

    /** gpushare's GPU choice: the tightest GPU that takes the share; the lowest-indexed free GPUs for whole ones. */
    static ReplayPolicy.Placement gpusBestFit(Cluster c, int node, OpenbTrace.Task t) {
        if (t.numGpu() == 0) return new ReplayPolicy.Placement(node, new int[0]);
        if (!t.sharing()) return new ReplayPolicy.Placement(node, c.firstFree(node, t.numGpu()));
        return new ReplayPolicy.Placement(node, new int[] {c.bestFitGpu(node, t.gpuMilli())});
    }
}
