package io.mpshare.sim.openb;

import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;

/**
 * What is left on each node during one replay, in the trace's own units: CPU thousandths, memory MiB and
 * thousandths of each GPU. Mutable and confined to one replay thread. The fit rules here are the
 * kube-scheduler side (CPU, memory, GPU model); GPU room is {@link #gpuRoom}.
 */
final class Cluster {
    final List<OpenbTrace.Node> nodes;
    final long[] cpuLeft;
    final long[] memLeft;
    final int[][] gpuLeft;
    final long totalGpuMilli;
    /** The order in which policies meet the nodes (ties go to the earlier): a permutation of the node indices. */
    final int[] order;
    long placedGpuMilli;

    Cluster(List<OpenbTrace.Node> nodes, SplittableRandom orderRandom) {
        this.nodes = nodes;
        int n = nodes.size();
        order = new int[n];
        for (int i = 0; i < n; i++) order[i] = i;
        for (int i = n - 1; i > 0 && orderRandom != null; i--) {
            int j = orderRandom.nextInt(i + 1), tmp = order[i];
            order[i] = order[j]; order[j] = tmp;
        }
        cpuLeft = new long[n];
        memLeft = new long[n];
        gpuLeft = new int[n][];
        long total = 0;
        for (int i = 0; i < n; i++) {
            OpenbTrace.Node node = nodes.get(i);
            cpuLeft[i] = node.cpuMilli();
            memLeft[i] = node.memoryMib();
            gpuLeft[i] = new int[node.gpus()];
            Arrays.fill(gpuLeft[i], 1000);
            total += 1000L * node.gpus();
        }
        totalGpuMilli = total;
    }

    int size() { return nodes.size(); }

    /** CPU, memory and GPU model: what kube-scheduler's own filters (and a node selector on the model) decide. */
    boolean hostFits(int i, OpenbTrace.Task t) {
        if (cpuLeft[i] < t.cpuMilli() || memLeft[i] < t.memoryMib()) return false;
        return t.numGpu() == 0 || (nodes.get(i).gpus() >= t.numGpu() && t.allows(nodes.get(i).model()));
    }

    /** Whether enough GPUs of node {@code i} have the task's share free. */
    boolean gpuRoom(int i, OpenbTrace.Task t) {
        if (t.numGpu() == 0) return true;
        int need = t.milliPerGpu(), ok = 0;
        for (int left : gpuLeft[i]) if (left >= need && ++ok >= t.numGpu()) return true;
        return false;
    }

    boolean fits(int i, OpenbTrace.Task t) { return hostFits(i, t) && gpuRoom(i, t); }

    int gpuLeftTotal(int i) {
        int s = 0;
        for (int l : gpuLeft[i]) s += l;
        return s;
    }

    void place(int i, OpenbTrace.Task t, int[] gpus) {
        if (gpus.length != t.numGpu()) throw new IllegalStateException(t.name() + ": " + gpus.length + " GPUs chosen for " + t.numGpu());
        cpuLeft[i] -= t.cpuMilli();
        memLeft[i] -= t.memoryMib();
        for (int g : gpus) {
            gpuLeft[i][g] -= t.milliPerGpu();
            if (gpuLeft[i][g] < 0) throw new IllegalStateException(t.name() + " overbooks GPU " + g + " of " + nodes.get(i).name());
        }
        if (cpuLeft[i] < 0 || memLeft[i] < 0) throw new IllegalStateException(t.name() + " overbooks " + nodes.get(i).name());
        placedGpuMilli += t.gpuAsk();
    }

    /** Lowest-indexed fully free GPUs, as many as asked (what gpushare does for whole-GPU tasks). */
    int[] firstFree(int i, int count) {
        int[] out = new int[count];
        int k = 0;
        for (int g = 0; g < gpuLeft[i].length && k < count; g++) if (gpuLeft[i][g] == 1000) out[k++] = g;
        if (k < count) throw new IllegalStateException("node " + nodes.get(i).name() + " lacks " + count + " free GPUs");
        return out;
    }

    /** For a share: the GPU with least room that still fits (ties: lowest index). */
    int bestFitGpu(int i, int milli) {
        int best = -1;
        for (int g = 0; g < gpuLeft[i].length; g++)
            if (gpuLeft[i][g] >= milli && (best < 0 || gpuLeft[i][g] < gpuLeft[i][best])) best = g;
        return best;
    }
}
