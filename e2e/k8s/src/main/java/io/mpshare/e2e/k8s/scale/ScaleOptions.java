package io.mpshare.e2e.k8s.scale;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The scale benchmark's settings, from {@code --name=value} arguments; each bad one is refused with a line saying
 * what to change.
 *
 * @param nodes         GPU nodes (8 GPUs each)
 * @param pods          pods per measured stream
 * @param warmup        pods per warm-up stream (not measured; the JIT and the caches of every process warm up)
 * @param warmupRounds  warm-up rounds, each a stream of each kind: the extender's JIT compilers keep working on
 *                      code that runs once per pod for thousands of pods, which a long-running extender no longer pays
 * @param fill          mean share of GPU memory booked before the streams
 * @param seed          the cluster generator's seed
 * @param threads       threads that create a stream's pods
 * @param rate          pods per second a stream is created at (0: as fast as the threads go)
 * @param serverCpus    CPUs (taskset list) of every server process; "" unpinned
 * @param defaultStream whether both kinds run once more through a profile with kube-scheduler's adaptive percentageOfNodesToScore
 * @param jfr           where to write a JFR recording of the extender during the measured GPU stream (null: none)
 * @param qps           kube-scheduler's clientConnection.qps and burst
 * @param timeout       a stream gives up after this long without a bind
 * @param extenderHeap  the extender's -Xmx
 * @param extenderArgs  extra arguments of the extender (e.g. --policy=binpack)
 */
record ScaleOptions(int nodes, int pods, int warmup, int warmupRounds, double fill, long seed, int threads, double rate, String serverCpus,
                    boolean defaultStream, boolean gpuFirst, boolean gpuAlone, Path jfr, Path pprof, int qps, Duration timeout, String extenderHeap, List<String> extenderArgs) {
    static final String USAGE = "ScaleBench [--nodes=500] [--pods=1000] [--warmup=300] [--warmup-rounds=1] [--fill=0.5] [--seed=42] [--threads=16] [--rate=0]"
            + " [--server-cpus=LIST] [--default-stream=true] [--gpu-first=false] [--gpu-alone=false] [--jfr=FILE] [--scheduler-pprof=DIR] [--qps=5000] [--timeout-s=120] [--extender-heap=1g] [--extender-arg=ARG ...]";

    ScaleOptions {
        if (nodes < 2 || nodes > 20_000) throw new IllegalArgumentException("--nodes must be 2..20000, got " + nodes);
        if (pods < 1) throw new IllegalArgumentException("--pods must be >= 1, got " + pods);
        if (warmup < 0) throw new IllegalArgumentException("--warmup must be >= 0, got " + warmup);
        if (warmupRounds < 1 || warmupRounds > 100) throw new IllegalArgumentException("--warmup-rounds must be 1..100, got " + warmupRounds);
        if (threads < 1 || threads > 256) throw new IllegalArgumentException("--threads must be 1..256, got " + threads);
        if (rate < 0) throw new IllegalArgumentException("--rate must be >= 0 (0: as fast as the threads go), got " + rate);
        if (qps < 1) throw new IllegalArgumentException("--qps must be >= 1, got " + qps);
        extenderArgs = List.copyOf(extenderArgs);
    }

    static ScaleOptions parse(List<String> args) {
        int nodes = 500, pods = 1000, warmup = 300, warmupRounds = 1, threads = 16, qps = 5000, timeout = 120;
        double fill = 0.5, rate = 0;
        long seed = 42;
        String cpus = "", heap = "1g";
        boolean defaultStream = true, gpuFirst = false, gpuAlone = false;
        Path jfr = null, pprof = null;
        List<String> extra = new ArrayList<>();
        for (String a : args) {
            int eq = a.indexOf('=');
            if (!a.startsWith("--") || eq < 0) throw new IllegalArgumentException("arguments are --name=value, got '" + a + "'; usage: " + USAGE);
            String k = a.substring(2, eq), v = a.substring(eq + 1);
            try {
                switch (k) {
                    case "nodes" -> nodes = Integer.parseInt(v);
                    case "pods" -> pods = Integer.parseInt(v);
                    case "warmup" -> warmup = Integer.parseInt(v);
                    case "warmup-rounds" -> warmupRounds = Integer.parseInt(v);
                    case "fill" -> fill = Double.parseDouble(v);
                    case "seed" -> seed = Long.parseLong(v);
                    case "threads" -> threads = Integer.parseInt(v);
                    case "rate" -> rate = Double.parseDouble(v);
                    case "server-cpus" -> cpus = v;
                    case "default-stream" -> defaultStream = Boolean.parseBoolean(v);
                    case "gpu-first" -> gpuFirst = Boolean.parseBoolean(v);
                    case "gpu-alone" -> gpuAlone = Boolean.parseBoolean(v);
                    case "jfr" -> jfr = v.isEmpty() ? null : Path.of(v).toAbsolutePath();
                    case "scheduler-pprof" -> pprof = v.isEmpty() ? null : Path.of(v).toAbsolutePath();
                    case "qps" -> qps = Integer.parseInt(v);
                    case "timeout-s" -> timeout = Integer.parseInt(v);
                    case "extender-heap" -> heap = v;
                    case "extender-arg" -> extra.add(v);
                    default -> throw new IllegalArgumentException("unknown option --" + k + "; usage: " + USAGE);
                }
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("--" + k + " takes a number, got '" + v + "'");
            }
        }
        if (!heap.matches("[0-9]+[kmgKMG]?")) throw new IllegalArgumentException("--extender-heap takes a size as -Xmx does (1g, 768m), got '" + heap + "'");
        return new ScaleOptions(nodes, pods, warmup, warmupRounds, fill, seed, threads, rate, cpus, defaultStream, gpuFirst, gpuAlone, jfr, pprof, qps, Duration.ofSeconds(timeout), heap, extra);
    }
}
