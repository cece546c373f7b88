package io.mpshare.bench;

import com.sun.management.OperatingSystemMXBean;
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.profile.InternalProfiler;
import org.openjdk.jmh.results.AggregationPolicy;
import org.openjdk.jmh.results.IterationResult;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.ScalarResult;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.util.List;

/**
 * CPU time per operation, next to JMH's wall time: {@code -prof io.mpshare.bench.CpuTimeProfiler}.
 *
 * <p>On a shared or oversubscribed machine the benchmark thread waits for a CPU, and wall time per
 * operation grows with everybody else's load; the CPU time the JMH worker thread itself spent does
 * not (caches shared with other processes still cost). Reports {@code cpu.worker} (the worker
 * threads' CPU time / measured operations) and {@code cpu.process} (the whole JVM: adds GC and JIT).
 */
public final class CpuTimeProfiler implements InternalProfiler {
    private final ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    private long workerStart;
    private long processStart;

    @Override public String getDescription() { return "CPU time per operation of the JMH worker threads and of the whole JVM"; }

    @Override public void beforeIteration(BenchmarkParams benchmarkParams, IterationParams iterationParams) {
        workerStart = workerCpuNanos();
        processStart = processCpuNanos();
    }

    @Override public List<? extends Result> afterIteration(BenchmarkParams benchmarkParams, IterationParams iterationParams,
                                                         IterationResult result) {
        long worker = workerCpuNanos() - workerStart;
        long process = processCpuNanos() - processStart;
        long ops = Math.max(1, result.getMetadata().getMeasuredOps());
        return List.of(
                new ScalarResult("cpu.worker", worker / 1e3 / ops, "us/op", AggregationPolicy.AVG),
                new ScalarResult("cpu.process", process / 1e3 / ops, "us/op", AggregationPolicy.AVG));
    }

    private long workerCpuNanos() {
        long sum = 0;
        for (ThreadInfo t : threads.getThreadInfo(threads.getAllThreadIds())) {
            if (t == null || !t.getThreadName().contains("jmh-worker")) continue;
            long cpu = threads.getThreadCpuTime(t.getThreadId());
            if (cpu > 0) sum += cpu;
        }
        return sum;
    }

    private static long processCpuNanos() {
        return ManagementFactory.getOperatingSystemMXBean() instanceof OperatingSystemMXBean os
                ? os.getProcessCpuTime() : 0;
    }
}
