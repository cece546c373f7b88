package io.mpshare.core.policy;

import io.mpshare.core.model.GpuDemand;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The demands a cluster expects to see next, with how often each comes: what
 * {@link FragmentationPolicy} measures fragmentation against.
 *
 * <p>An entry asks, on each of {@code gpuCount} GPUs, {@code mibPerGpu} MiB plus {@code permillePerGpu}
 * thousandths of the GPU's memory, and {@code corePerGpu} percent of its cores. The extender builds a mix
 * from recently seen pods (absolute MiB, {@link #ofDemands}); a trace replay whose tasks ask a share of
 * whichever GPU they land on uses per-mille entries. {@code cpuMilli} and {@code memoryMib} are the host CPU
 * and memory the entry's pods ask (0 when unknown): a node whose free CPU or memory cannot host the entry
 * leaves all its free GPU share to waste for it.
 */
public record TaskMix(List<Entry> entries) {
    public record Entry(int gpuCount, long mibPerGpu, int permillePerGpu, int corePerGpu, long cpuMilli, long memoryMib, double weight) {
        public Entry {
            if (memoryMib < 0) throw new IllegalArgumentException("memoryMib must be >= 0, got " + memoryMib);
            if (cpuMilli < 0) throw new IllegalArgumentException("cpuMilli must be >= 0, got " + cpuMilli);
            if (gpuCount < 1) throw new IllegalArgumentException("gpuCount must be >= 1, got " + gpuCount);
            if (mibPerGpu < 0) throw new IllegalArgumentException("mibPerGpu must be >= 0, got " + mibPerGpu);
            if (permillePerGpu < 0 || permillePerGpu > 1000) throw new IllegalArgumentException("permillePerGpu must be 0-1000, got " + permillePerGpu);
            if (corePerGpu < 0 || corePerGpu > 100) throw new IllegalArgumentException("corePerGpu must be 0-100, got " + corePerGpu);
            if (mibPerGpu == 0 && permillePerGpu == 0 && corePerGpu == 0) throw new IllegalArgumentException("an entry must ask for something");
            if (!(weight > 0) || Double.isInfinite(weight)) throw new IllegalArgumentException("weight must be > 0, got " + weight);
        }

        /** What the entry needs of one GPU of {@code totalMib}, in thousandths of that GPU (1001 = never fits). */
        int needPermille(long totalMib) {
            long mem = (mibPerGpu * 1000 + totalMib - 1) / totalMib + permillePerGpu;
            long need = Math.max(mem, corePerGpu * 10L);
            return (int) Math.min(1001, Math.max(1, need));
        }
    }

    public TaskMix {
        entries = List.copyOf(entries);
        if (entries.isEmpty()) throw new IllegalArgumentException("a task mix needs at least one entry");
        double sum = 0;
        for (Entry e : entries) sum += e.weight();
        List<Entry> norm = new ArrayList<>(entries.size());
        for (Entry e : entries) norm.add(new Entry(e.gpuCount(), e.mibPerGpu(), e.permillePerGpu(), e.corePerGpu(), e.cpuMilli(), e.memoryMib(), e.weight() / sum));
        entries = List.copyOf(norm);
    }

    /**
     * How far apart two mixes are: the total variation distance of their weights, half the sum over every entry shape
     * (all of an entry's fields but its weight) of the difference of its weight in each; 0 for the same weights, 1 for
     * mixes with no shape in common. The weight a mix moves from one shape to others is the distance.
     */
    public double distance(TaskMix other) {
        Objects.requireNonNull(other, "other");
        Map<List<Long>, Double> diff = new HashMap<>();
        for (Entry e : entries) diff.merge(shape(e), e.weight(), Double::sum);
        for (Entry e : other.entries) diff.merge(shape(e), -e.weight(), Double::sum);
        double sum = 0;
        for (double d : diff.values()) sum += Math.abs(d);
        return Math.min(1, sum / 2);
    }

    private static List<Long> shape(Entry e) {
        return List.of((long) e.gpuCount(), e.mibPerGpu(), (long) e.permillePerGpu(), (long) e.corePerGpu(), e.cpuMilli(), e.memoryMib());
    }

    /** A mix from demands the cluster has seen (for example the extender's last few thousand pods); equal demands merge. */
    public static TaskMix ofDemands(Collection<GpuDemand> seen) {
        Objects.requireNonNull(seen, "seen");
        Map<List<Long>, Double> counts = new LinkedHashMap<>();
        for (GpuDemand d : seen) counts.merge(List.of((long) d.gpuCount(), d.chargeMib(), (long) d.chargeCore()), 1.0, Double::sum);
        List<Entry> out = new ArrayList<>();
        counts.forEach((k, w) -> out.add(new Entry(k.get(0).intValue(), k.get(1), 0, k.get(2).intValue(), 0, 0, w)));
        return new TaskMix(out);
    }
}
