package io.mpshare.sim.workload;

/**
 * One pod of a simulated workload: when it arrives, how long it runs once placed, and what it asks.
 *
 * @param id          0-based, in arrival order; also the tie-break between pods arriving at the same time
 * @param arrivalMs   arrival time in milliseconds since the start of the simulation
 * @param durationMs  running time once placed (&gt; 0)
 * @param memMib      {@code aliyun.com/gpu-mem} in MiB over all its GPUs (&gt; 0)
 * @param corePercent {@code aliyun.com/gpu-core.percentage} over all its GPUs, 0-100 (0: not asked)
 * @param gpuCount    {@code aliyun.com/gpu-count}, &gt;= 1
 * @param kind        a label for the report: "small", "medium", "large" or "trace"
 */
public record SimPod(int id, long arrivalMs, long durationMs, long memMib, int corePercent, int gpuCount, String kind) {
    public SimPod {
        if (id < 0) throw new IllegalArgumentException("pod id must be >= 0");
        if (arrivalMs < 0) throw new IllegalArgumentException("pod " + id + ": arrival must be >= 0");
        if (durationMs <= 0) throw new IllegalArgumentException("pod " + id + ": duration must be > 0");
        if (memMib <= 0) throw new IllegalArgumentException("pod " + id + ": gpu-mem must be > 0");
        if (corePercent < 0 || corePercent > 100) throw new IllegalArgumentException("pod " + id + ": gpu-core must be 0-100");
        if (gpuCount < 1) throw new IllegalArgumentException("pod " + id + ": gpu-count must be >= 1");
        if (kind == null || kind.isBlank()) kind = "trace";
    }
}
