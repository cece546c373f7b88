package io.mpshare.bench.extender;

import io.mpshare.core.Names;
import io.mpshare.core.ledger.Ledger;
import io.mpshare.core.policy.PlacementPolicy;
import io.mpshare.scheduler.SchedulerExtender;
import io.mpshare.scheduler.policy.LearnedFragmentationPolicy;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.InstantSource;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.logging.LogManager;

import static io.mpshare.bench.extender.ExtenderLoad.arg;
import static io.mpshare.bench.extender.ExtenderLoad.extender;
import static io.mpshare.bench.extender.ExtenderLoad.payload;
import static io.mpshare.bench.extender.ExtenderLoad.preload;

/**
 * What the extender costs kube-scheduler per scheduling cycle of a GPU pod, over HTTP in one process: {@code filter}
 * with every node name, then {@code prioritize} with the names the filter kept, as kube-scheduler sends them (each
 * cycle a pod of another name, so each prioritize holds room on its top node, as in production). One client thread,
 * one worker; per verb the CPU time of the server's threads (the JDK server's dispatcher and the worker; GC and JIT
 * not counted) and the wall time.
 *
 * <p>{@code CycleCost [nodes=5000] [pods=40000] [cycles=3000] [warmup=2000] [policy=fragmentation]}; pin it to one
 * CPU with taskset for a figure without other processes' cache traffic.
 */
public final class CycleCost {
    private CycleCost() {}

    public static void main(String[] args) throws Exception {
        LogManager.getLogManager().reset();
        int nodes = arg(args, 0, 5_000), pods = arg(args, 1, 40_000), cycles = arg(args, 2, 3_000), warmup = arg(args, 3, 2_000);
        String policyName = args.length > 4 ? args[4] : SchedulerExtender.DEFAULT_POLICY;
        Ledger ledger = new Ledger(InstantSource.system(), Duration.ofMinutes(5));
        List<String> names = preload(ledger, nodes, pods);
        PlacementPolicy policy = SchedulerExtender.policy(policyName, true);
        if (policy instanceof LearnedFragmentationPolicy learned) ledger.allocations().forEach(a -> learned.observe(a.pod(), a.demand()));
        var server = extender(ledger, policy, 1);
        server.start();
        var addr = new InetSocketAddress("127.0.0.1", server.port());
        String template = new String(payload(names, 30), StandardCharsets.UTF_8);
        var threads = ManagementFactory.getThreadMXBean();
        long[][] cpu = new long[2][cycles], wall = new long[2][cycles];
        int[] kept = new int[cycles], zeros = new int[cycles];
        var client = new RawHttpClient(addr, Names.EXTENDER_PREFIX + "/healthz", new byte[0]);
        for (int i = -warmup; i < cycles; i++) {
            String filter = template.replace("\"name\":\"train-7f9c-0\"", "\"name\":\"train-7f9c-" + (i + warmup) + "\"");
            byte[] reply = call(client, "filter", filter.getBytes(StandardCharsets.UTF_8), threads, cpu[0], wall[0], i);
            if (i == -warmup) findServerThreads(); // the worker exists once it served a call
            String r = new String(reply, StandardCharsets.UTF_8);
            int from = r.indexOf("\"NodeNames\":[") + "\"NodeNames\":".length(), to = r.indexOf(']', from) + 1;
            String keptNames = r.substring(from, to);
            if (i >= 0) kept[i] = keptNames.length() <= 2 ? 0 : keptNames.split(",").length;
            String prioritize = filter.substring(0, filter.indexOf("\"NodeNames\":[") + "\"NodeNames\":".length()) + keptNames + "}";
            byte[] scored = call(client, "prioritize", prioritize.getBytes(StandardCharsets.UTF_8), threads, cpu[1], wall[1], i);
            if (i >= 0) zeros[i] = count(new String(scored, StandardCharsets.UTF_8), "\"Score\":0}");
        }
        System.out.printf(Locale.ROOT, "%d nodes, %d cycles after %d of warm-up; policy %s; filter shortlist %d; nodes kept per filter: median %d, scored 0 by prioritize: median %d; JDK %s, %d CPUs%n",
                nodes, cycles, warmup, policy.name(), ExtenderLoad.shortlist(), median(kept), median(zeros), Runtime.version(), Runtime.getRuntime().availableProcessors());
        System.out.println("| verb | CPU µs p50 | CPU µs mean | wall µs p50 | wall µs p99 |");
        System.out.println("|---|---|---|---|---|");
        String[] verbs = {"filter", "prioritize"};
        for (int v = 0; v < 2; v++)
            System.out.printf(Locale.ROOT, "| %s | %.0f | %.0f | %.0f | %.0f |%n", verbs[v], pct(cpu[v], 0.5) / 1e3, Arrays.stream(cpu[v]).average().orElse(0) / 1e3,
                    pct(wall[v], 0.5) / 1e3, pct(wall[v], 0.99) / 1e3);
        server.close();
        System.exit(0);
    }

    private static byte[] call(RawHttpClient client, String verb, byte[] body, ThreadMXBean threads, long[] cpu, long[] wall, int i) throws Exception {
        long c0 = serverCpu(threads), w0 = System.nanoTime();
        client.call(Names.EXTENDER_PREFIX + "/" + verb, body);
        long w1 = System.nanoTime(), c1 = serverCpu(threads);
        if (i >= 0) { cpu[i] = c1 - c0; wall[i] = w1 - w0; }
        return client.lastBody();
    }

    /** CPU time of the JDK server's threads: its dispatcher (reads headers) and the extender's HTTP workers. */
    private static long serverCpu(ThreadMXBean threads) {
        long sum = 0;
        for (long id : SERVER_THREADS) sum += Math.max(0, threads.getThreadCpuTime(id));
        return sum;
    }

    private static long[] SERVER_THREADS = new long[0];

    private static void findServerThreads() {
        SERVER_THREADS = Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getName().startsWith("extender-http-") || t.getName().startsWith("HTTP-Dispatcher")).mapToLong(Thread::threadId).toArray();
    }

    private static int count(String s, String what) {
        int n = 0;
        for (int i = s.indexOf(what); i >= 0; i = s.indexOf(what, i + 1)) n++;
        return n;
    }

    private static int median(int[] xs) { int[] s = xs.clone(); Arrays.sort(s); return s[s.length / 2]; }

    private static double pct(long[] xs, double p) {
        long[] s = xs.clone();
        Arrays.sort(s);
        return s[Math.min(s.length - 1, (int) Math.ceil(p * s.length) - 1)];
    }
}
