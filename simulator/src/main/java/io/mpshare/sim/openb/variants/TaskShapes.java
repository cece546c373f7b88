package io.mpshare.sim.openb.variants;

import io.mpshare.sim.openb.OpenbTrace;

import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The task-shape statistics a trace family is defined by, to compare a generated variant with a published
 * file: shares by task count and by GPU share asked, and the distribution of the GPU ask.
 *
 * @param tasks          all tasks
 * @param gpuTasks       tasks asking a GPU or a share of one
 * @param cpuOnlyShare   CPU-only tasks / all tasks
 * @param sharingShare   sharing tasks / GPU tasks
 * @param multiShare     multi-GPU tasks / GPU tasks
 * @param specShare      GPU tasks with a model constraint / GPU tasks
 * @param sharingAskShare GPU share asked by sharing tasks / GPU share asked by all
 * @param multiAskShare  GPU share asked by multi-GPU tasks / GPU share asked by all
 * @param cpuOnlyCpu     CPU asked by CPU-only tasks, thousandths of a core
 * @param gpuAsk         GPU tasks by ask ("2x1000", "1x470"), as fractions of the GPU tasks
 */
public record TaskShapes(int tasks, int gpuTasks, double cpuOnlyShare, double sharingShare, double multiShare, double specShare,
                         double sharingAskShare, double multiAskShare, long cpuOnlyCpu, Map<String, Double> gpuAsk) {

    public static TaskShapes of(List<OpenbTrace.Task> trace) {
        int gpu = 0, cpuOnly = 0, sharing = 0, multi = 0, spec = 0;
        long ask = 0, sharingAsk = 0, multiAsk = 0, cpuOnlyCpu = 0;
        Map<String, Double> byAsk = new TreeMap<>();
        for (OpenbTrace.Task t : trace) {
            if (t.numGpu() == 0) { cpuOnly++; cpuOnlyCpu += t.cpuMilli(); continue; }
            gpu++;
            ask += t.gpuAsk();
            if (t.sharing()) { sharing++; sharingAsk += t.gpuAsk(); }
            if (t.numGpu() > 1) { multi++; multiAsk += t.gpuAsk(); }
            if (!t.gpuSpec().isEmpty()) spec++;
            byAsk.merge(t.numGpu() + "x" + t.milliPerGpu(), 1.0, Double::sum);
        }
        int g = Math.max(gpu, 1);
        byAsk.replaceAll((k, n) -> n / g);
        double a = Math.max(ask, 1);
        return new TaskShapes(trace.size(), gpu, trace.isEmpty() ? 0 : (double) cpuOnly / trace.size(), (double) sharing / g,
                (double) multi / g, (double) spec / g, sharingAsk / a, multiAsk / a, cpuOnlyCpu, Map.copyOf(byAsk));
    }

    /** Total variation distance between the GPU-ask distributions: 0 equal, 1 disjoint. */
    public double askDistance(TaskShapes other) {
        Set<String> keys = new HashSet<>(gpuAsk.keySet());
        keys.addAll(other.gpuAsk.keySet());
        double d = 0;
        for (String k : keys) d += Math.abs(gpuAsk.getOrDefault(k, 0.0) - other.gpuAsk.getOrDefault(k, 0.0));
        return d / 2;
    }
}
