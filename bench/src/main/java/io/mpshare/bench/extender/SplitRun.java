package io.mpshare.bench.extender;

import io.mpshare.core.Names;
import io.mpshare.core.ledger.Ledger;
import io.mpshare.core.policy.PlacementPolicy;
import io.mpshare.scheduler.SchedulerExtender;
import io.mpshare.scheduler.policy.LearnedFragmentationPolicy;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.OptionalLong;
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
     * Args: {@code [nodes] [pods] [serverThreads] [gpuCorePercent] [policy] [uid-rule on|off] [uid-pods-%] [uid-requests-%] [uids]}
     * ({@link Mix}; default: rule on, no pod with a UID). The floor answers the reply of a pod without UID.
     */
    static void serve(String[] args) throws Exception {
        int nodes = arg(args, 0, 5_000), pods = arg(args, 1, 40_000), threads = arg(args, 2, Runtime.getRuntime().availableProcessors());
        int core = arg(args, 3, 30);
        String policyName = args.length > 4 ? args[4] : SchedulerExtender.DEFAULT_POLICY;
        Mix mix = Mix.of(args, 5);
        Ledger ledger = new Ledger(InstantSource.system(), Duration.ofMinutes(5));
        List<String> names = preload(ledger, nodes, pods, mix);
        PlacementPolicy policy = SchedulerExtender.policy(policyName, mix.uidRule());
        if (policy instanceof LearnedFragmentationPolicy learned) ledger.allocations().forEach(a -> learned.observe(a.pod(), a.demand()));
        var extender = extender(ledger, policy, threads);
        extender.start();
        var addr = new InetSocketAddress("127.0.0.1", extender.port());
        byte[] reply = once(addr, Names.EXTENDER_PREFIX + "/filter", payload(names, core));
        var floor = floorServer(threads, reply);
        System.out.printf(Locale.ROOT, "server: policy %s, %s; filter shortlist %d, pick in filter %s; %d server threads, %d CPUs, reply %d bytes (pod without UID)%n", policy.name(), mix,
                ExtenderLoad.shortlist(), ExtenderLoad.pickInFilter(), threads, Runtime.getRuntime().availableProcessors(), reply.length);
        for (int u = 0; u < Math.min(mix.uids(), 2) && mix.requestPercent() > 0; u++) {
            String r = new String(once(addr, Names.EXTENDER_PREFIX + "/filter", payload(names, core, OptionalLong.of(1000 + u))), StandardCharsets.UTF_8);
            int kept = r.indexOf("\"NodeNames\":[") < 0 ? 0 : r.substring(r.indexOf("\"NodeNames\":["), r.indexOf(']', r.indexOf("\"NodeNames\":["))).split(",").length;
            System.out.printf(Locale.ROOT, "server: pod of UID %d: reply %d bytes, %d of %d nodes kept%n", 1000 + u, r.length(), kept, nodes);
        }
        System.out.printf(Locale.ROOT, "ports %d %d%n", extender.port(), floor.getAddress().getPort());
        System.out.flush();
        new CountDownLatch(1).await();
    }

    /**
     * Load half: floor, extender, floor again against a {@link #serve} process.
     * Args: {@code extenderPort floorPort [nodes] [clients] [warmupSeconds] [measureSeconds] [gpuCorePercent] [uid-requests-%] [uids] [floor on|off]}:
     * that share of the clients send a pod running as one of {@code uids} UIDs ({@link Mix#request}), the others one without.
     */
    static void load(String[] args) throws Exception {
        int extPort = Integer.parseInt(args[0]), floorPort = Integer.parseInt(args[1]);
        int nodes = arg(args, 2, 5_000), clients = arg(args, 3, 16), warmup = arg(args, 4, 30), measure = arg(args, 5, 15), core = arg(args, 6, 30);
        Mix mix = new Mix(true, 0, arg(args, 7, 0), arg(args, 8, 4));
        boolean floor = args.length <= 9 || !args[9].equals("off");
        List<String> names = new ArrayList<>(nodes);
        for (int n = 0; n < nodes; n++) names.add(String.format(Locale.ROOT, "gpu-node-%05d", n));
        byte[] payload = payload(names, core);
        byte[][] perClient = new byte[clients][];
        int withUid = 0;
        for (int c = 0; c < clients; c++) {
            var uid = mix.request(c, clients);
            perClient[c] = uid.isPresent() ? payload(names, core, uid) : payload;
            if (uid.isPresent()) withUid++;
        }
        System.out.printf(Locale.ROOT, "load: %d clients on %d CPUs (%d send a pod with a UID, of %d UIDs); %d node names, request %d bytes; %d s warm-up, %d s measured%n",
                clients, Runtime.getRuntime().availableProcessors(), withUid, mix.uids(), nodes, payload.length, warmup, measure);
        var ext = new InetSocketAddress("127.0.0.1", extPort);
        var fl = new InetSocketAddress("127.0.0.1", floorPort);
        Result none = new Result("floor (skipped)", Double.NaN, Double.NaN, Double.NaN, Double.NaN);
        Result f1 = floor ? run("floor", fl, "/floor", c -> payload, clients, warmup, measure) : none;
        Group split = withUid == 0 || withUid == clients ? null
                : new Group(c -> mix.request(c, clients).isPresent(), "extender: pods with a UID", "extender: pods without");
        List<Result> es = run("extender", ext, Names.EXTENDER_PREFIX + "/filter", c -> perClient[c], clients, warmup, measure, split);
        Result e = es.get(0);
        Result f2 = floor ? run("floor (again)", fl, "/floor", c -> payload, clients, warmup / 2, measure) : none;
        double floorRate = Math.max(f1.rate(), f2.rate());
        System.out.println();
        System.out.println("| server | filters/s | p50 ms | p99 ms | p99.9 ms |");
        System.out.println("|---|---|---|---|---|");
        List<Result> rows = new ArrayList<>(List.of(f1));
        rows.addAll(es);
        rows.add(f2);
        for (Result r : rows) if (!Double.isNaN(r.rate())) System.out.println(r.row());
        System.out.printf(Locale.ROOT, "%nextender / floor = %.2f (goal >= 0.3); extender %.0f filters/s (goal >= 3000), p99 %.2f ms (goal <= 5)%n",
                e.rate() / floorRate, e.rate(), e.p99());
        System.exit(0);
    }

}
