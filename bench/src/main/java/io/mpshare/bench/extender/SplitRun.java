package io.mpshare.bench.extender;

import io.mpshare.core.Names;
import io.mpshare.core.ledger.Ledger;
import io.mpshare.core.policy.PlacementPolicy;
import io.mpshare.scheduler.LearnedFragmentationPolicy;
import io.mpshare.scheduler.SchedulerExtender;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;

import static io.mpshare.bench.extender.ExtenderLoad.*;

/**
 * {@link ExtenderLoad} in two processes, so that {@code bench/run-extender-load.sh} can pin the servers and the load
 * generator to different CPUs with taskset: {@code serve} holds the ledger, the extender and the floor; {@code load}
 * drives them over loopback.
 */
final class SplitRun {
    private SplitRun() {}

    /**
     * Server half of a run in two processes (so each can be pinned to its own CPU): the extender and the floor on
     * loopback; prints {@code ports <extender> <floor>} and serves until killed.
     * Args: {@code [nodes] [pods] [serverThreads] [gpuCorePercent] [policy]}.
     */
    static void serve(String[] args) throws Exception {
        int nodes = arg(args, 0, 5_000), pods = arg(args, 1, 40_000), threads = arg(args, 2, Runtime.getRuntime().availableProcessors());
        int core = arg(args, 3, 30);
        String policyName = args.length > 4 ? args[4] : SchedulerExtender.DEFAULT_POLICY;
        Ledger ledger = new Ledger(InstantSource.system(), Duration.ofMinutes(5));
        List<String> names = preload(ledger, nodes, pods);
        PlacementPolicy policy = SchedulerExtender.policy(policyName, false);
        if (policy instanceof LearnedFragmentationPolicy learned) ledger.allocations().forEach(a -> learned.observe(a.pod(), a.demand()));
        var extender = extender(ledger, policy, threads);
        extender.start();
        byte[] reply = once(new InetSocketAddress("127.0.0.1", extender.port()), Names.EXTENDER_PREFIX + "/filter", payload(names, core));
        var floor = floorServer(threads, reply);
        System.out.printf(Locale.ROOT, "server: policy %s, %d server threads, %d CPUs, reply %d bytes%n", policy.name(), threads,
                Runtime.getRuntime().availableProcessors(), reply.length);
        System.out.printf(Locale.ROOT, "ports %d %d%n", extender.port(), floor.getAddress().getPort());
        System.out.flush();
        new CountDownLatch(1).await();
    }

    /**
     * Load half: floor, extender, floor again against a {@link #serve} process.
     * Args: {@code extenderPort floorPort [nodes] [clients] [warmupSeconds] [measureSeconds] [gpuCorePercent]}.
     */
    static void load(String[] args) throws Exception {
        int extPort = Integer.parseInt(args[0]), floorPort = Integer.parseInt(args[1]);
        int nodes = arg(args, 2, 5_000), clients = arg(args, 3, 16), warmup = arg(args, 4, 30), measure = arg(args, 5, 15), core = arg(args, 6, 30);
        List<String> names = new ArrayList<>(nodes);
        for (int n = 0; n < nodes; n++) names.add(String.format(Locale.ROOT, "gpu-node-%05d", n));
        byte[] payload = payload(names, core);
        System.out.printf(Locale.ROOT, "load: %d clients on %d CPUs; %d node names, request %d bytes; %d s warm-up, %d s measured%n",
                clients, Runtime.getRuntime().availableProcessors(), nodes, payload.length, warmup, measure);
        var ext = new InetSocketAddress("127.0.0.1", extPort);
        var fl = new InetSocketAddress("127.0.0.1", floorPort);
        Result f1 = run("floor", fl, "/floor", payload, clients, warmup, measure);
        Result e = run("extender", ext, Names.EXTENDER_PREFIX + "/filter", payload, clients, warmup, measure);
        Result f2 = run("floor (again)", fl, "/floor", payload, clients, warmup / 2, measure);
        double floorRate = Math.max(f1.rate(), f2.rate());
        System.out.println();
        System.out.println("| server | filters/s | p50 ms | p99 ms | p99.9 ms |");
        System.out.println("|---|---|---|---|---|");
        for (Result r : List.of(f1, e, f2)) System.out.println(r.row());
        System.out.printf(Locale.ROOT, "%nextender / floor = %.2f (goal >= 0.5); extender %.0f filters/s (goal >= 3000), p99 %.2f ms (goal <= 5)%n",
                e.rate() / floorRate, e.rate(), e.p99());
        System.exit(0);
    }

}
