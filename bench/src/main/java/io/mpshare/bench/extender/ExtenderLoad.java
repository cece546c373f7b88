package io.mpshare.bench.extender;

import com.sun.net.httpserver.HttpServer;
import io.mpshare.core.MemoryUnit;
import io.mpshare.core.Names;
import io.mpshare.core.isolation.FaultDomains;
import io.mpshare.core.isolation.FaultDomains.Kind;
import io.mpshare.core.ledger.AssumeResult;
import io.mpshare.core.ledger.Ledger;
import io.mpshare.core.ledger.NodeState;
import io.mpshare.core.model.DemandResolver;
import io.mpshare.core.model.Gpu;
import io.mpshare.core.model.GpuDemand;
import io.mpshare.core.model.NodeInventory;
import io.mpshare.core.model.PodKey;
import io.mpshare.core.model.ServingDomain;
import io.mpshare.core.policy.BinpackPolicy;
import io.mpshare.core.policy.Evaluation;
import io.mpshare.core.policy.PlacementEngine;
import io.mpshare.core.policy.PlacementPolicy;
import io.mpshare.kube.KubePod;
import io.mpshare.kube.PodApi;
import io.mpshare.scheduler.ExtenderConfig;
import io.mpshare.scheduler.SchedulerExtender;
import io.mpshare.scheduler.bind.BindChecks;
import io.mpshare.scheduler.bind.Binder;
import io.mpshare.scheduler.bind.PendingPods;
import io.mpshare.scheduler.cluster.StaleRoomCheck;
import io.mpshare.scheduler.cycle.AskReader;
import io.mpshare.scheduler.cycle.HeldRoom;
import io.mpshare.scheduler.cycle.PipelineHolds;
import io.mpshare.scheduler.http.ExtenderHttpServer;
import io.mpshare.scheduler.http.HttpOptions;
import io.mpshare.scheduler.http.Inspect;
import io.mpshare.scheduler.metrics.ExtenderMetrics;
import io.mpshare.scheduler.policy.LearnedFragmentationPolicy;
import io.mpshare.scheduler.verbs.Verbs;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.IntFunction;
import java.util.function.IntPredicate;

/**
 * Filter load against the extender, and against the floor, in one run.
 *
 * <p>Cluster: {@code nodes} nodes × 8 H200 (143,771 MiB), {@code pods} pods booked in-process (1–16 GiB,
 * a quarter with a core share, one in ten over two GPUs), spread at random. Request: the kube-scheduler
 * {@code ExtenderArgs} of a realistic pod (init container, sidecar, env, volumes, tolerations, managed
 * fields) with all node names. {@code clients} threads, each with its own keep-alive connection, send
 * back to back for {@code warmup} then {@code measure} seconds; latency is recorded per request.
 *
 * <p>Floor: a bare {@code com.sun.net.httpserver} server with the same worker count that reads the same
 * request body and answers the extender's reply bytes, precomputed: HTTP and I/O with no JSON and no
 * placement. Usage: {@code ExtenderLoad [nodes] [pods] [clients] [warmupSeconds] [measureSeconds] [serverThreads] [gpuCorePercent] [policy]}
 * (the pod asks 7 GiB and, unless {@code gpuCorePercent} is 0, that share of the GPU's SMs; default 30; policy: the
 * extender's default, fragmentation, with its mix learned from the preloaded pods, or binpack or spread).
 */
public final class ExtenderLoad {
    public static void main(String[] args) throws Exception {
        if (args.length > 0 && args[0].equals("serve")) { SplitRun.serve(Arrays.copyOfRange(args, 1, args.length)); return; }
        if (args.length > 0 && args[0].equals("load")) { SplitRun.load(Arrays.copyOfRange(args, 1, args.length)); return; }
        int nodes = arg(args, 0, 5_000), pods = arg(args, 1, 40_000), clients = arg(args, 2, 16);
        int warmup = arg(args, 3, 30), measure = arg(args, 4, 15), threads = arg(args, 5, Runtime.getRuntime().availableProcessors());
        int core = arg(args, 6, 30);
        String policyName = args.length > 7 ? args[7] : SchedulerExtender.DEFAULT_POLICY;
        System.out.printf(Locale.ROOT, "cluster: %d nodes x 8 GPUs, %d pods; %d clients, %d server threads; %d s warm-up, %d s measured; pod asks 7 GiB, %d%% cores; JDK %s, %d CPUs%n",
                nodes, pods, clients, threads, warmup, measure, core, Runtime.version(), Runtime.getRuntime().availableProcessors());
        Ledger ledger = new Ledger(InstantSource.system(), Duration.ofMinutes(5));
        List<String> names = preload(ledger, nodes, pods);
        PlacementPolicy policy = SchedulerExtender.policy(policyName, true); // the UID rule on, as by default; this pod sets no UID
        if (policy instanceof LearnedFragmentationPolicy learned) ledger.allocations().forEach(a -> learned.observe(a.pod(), a.demand())); // as the cluster view would
        System.out.printf(Locale.ROOT, "policy: %s; filter shortlist %d, pick in filter %s%n", policy.name(), shortlist(), pickInFilter());
        byte[] payload = payload(names, core);
        var extender = extender(ledger, policy, threads);
        extender.start();
        String path = Names.EXTENDER_PREFIX + "/filter";
        var addr = new InetSocketAddress("127.0.0.1", extender.port());
        byte[] reply = once(addr, path, payload);
        System.out.printf(Locale.ROOT, "request %d bytes, reply %d bytes: %s%n", payload.length, reply.length,
                new String(reply, 0, Math.min(160, reply.length), StandardCharsets.UTF_8).replace('\n', ' ') + "...");
        var floor = floorServer(threads, reply);
        var floorAddr = new InetSocketAddress("127.0.0.1", floor.getAddress().getPort());

        Result f1 = run("floor", floorAddr, "/floor", c -> payload, clients, warmup, measure);
        Result e = run("extender", addr, path, c -> payload, clients, warmup, measure);
        Result f2 = run("floor (again)", floorAddr, "/floor", c -> payload, clients, warmup / 2, measure);
        double floorRate = Math.max(f1.rate, f2.rate);
        System.out.println();
        System.out.println("| server | filters/s | p50 ms | p99 ms | p99.9 ms |");
        System.out.println("|---|---|---|---|---|");
        for (Result r : List.of(f1, e, f2)) System.out.println(r.row());
        System.out.printf(Locale.ROOT, "%nextender / floor = %.2f (goal >= 0.3); extender %.0f filters/s (goal >= 3000), p99 %.2f ms (goal <= 5)%n",
                e.rate / floorRate, e.rate, e.p99);
        extender.close();
        floor.stop(0);
        System.exit(0);
    }

    /** The filter's shortlist the benchmarks' extender runs with: the product's default, or {@code -Dbench.shortlist=N} (0: every node that fits). */
    static int shortlist() { return Integer.getInteger("bench.shortlist", ExtenderConfig.DEFAULT_SHORTLIST); }

    /** Whether a pod without preferences gets one node from the filter, as the product's default has it, or {@code -Dbench.pickInFilter=false}. */
    static boolean pickInFilter() { return !"false".equals(System.getProperty("bench.pickInFilter")); }

    /**
     * The extender as the product wires it for kube-scheduler: pipelining holds on, the filter's shortlist
     * ({@link #shortlist}), the stale-room re-read and the body cap in the path, verbs from loopback only; no API
     * server (binds fail, the re-read finds nothing).
     */
    static ExtenderHttpServer extender(Ledger ledger, PlacementPolicy policy, int threads) throws IOException {
        var engine = new PlacementEngine(ledger, Boolean.getBoolean("bench.uidBySnapshot") ? uidBySnapshot(policy) : policy);
        if (policy instanceof LearnedFragmentationPolicy learned) learned.touchOnHostChange(ledger); // as SchedulerExtender wires it
        Kind kind = faultDomain();
        var asks = new AskReader(MemoryUnit.GIB, new DemandResolver(Names.DEFAULT_CONTEXT_RESERVE_MIB), ns -> FaultDomains.kindOf(ns, null, kind));
        var holds = new PipelineHolds(engine, InstantSource.system(), ExtenderConfig.DEFAULT_HOLD_TTL);
        var verbs = new Verbs(engine, asks, holds, HeldRoom.NONE, shortlist(), pickInFilter());
        var recheck = new StaleRoomCheck(ledger, node -> List.of(), InstantSource.system(), ExtenderConfig.DEFAULT_RECHECK_NODES, Duration.ofSeconds(1));
        var binder = new Binder(engine, holds, asks, new NoApi(), BindChecks.any(), PendingPods.none());
        return new ExtenderHttpServer(ExtenderHttpServer.Parts.of(new InetSocketAddress("127.0.0.1", 0), threads, verbs, binder,
                        new Inspect(ledger), new ExtenderMetrics(ledger), () -> true, "bench")
                .withOptions(new HttpOptions(HttpOptions.DEFAULT_MAX_REQUEST_BYTES, true, null)).withRecheck(recheck));
    }

    /**
     * The policy as it was before the filter index kept UIDs (-Dbench.uidBySnapshot=true): a pod of known UID under the
     * UID rule is asked of each node's snapshot. For a same-run comparison only.
     */
    static PlacementPolicy uidBySnapshot(PlacementPolicy p) {
        return new PlacementPolicy() {
            @Override public String name() { return p.name(); }
            @Override public Evaluation evaluate(NodeState n, GpuDemand d) { return p.evaluate(n, d); }
            @Override public long score(NodeState n, GpuDemand d) { return p.score(n, d); }
            @Override public boolean fits(NodeState n, GpuDemand d) { return p.fits(n, d); }
            @Override public boolean fitsByRoom(GpuDemand d) { return p.fitsByRoom(d); }
        };
    }

    record Result(String name, double rate, double p50, double p99, double p999) {
        String row() { return String.format(Locale.ROOT, "| %s | %.0f | %.2f | %.2f | %.2f |", name, rate, p50, p99, p999); }
    }

    /** {@code clients} closed-loop clients; client {@code c} sends {@code payloadOf.apply(c)} back to back. */
    static Result run(String name, InetSocketAddress addr, String path, IntFunction<byte[]> payloadOf, int clients, int warmup, int measure) throws Exception {
        return run(name, addr, path, payloadOf, clients, warmup, measure, null).get(0);
    }

    /**
     * {@link #run}, and when {@code group} is given, one more row for the clients it selects and one for the others
     * (named {@code group}'s two names), from the same measurement.
     */
    record Group(IntPredicate in, String inName, String outName) {}

    static List<Result> run(String name, InetSocketAddress addr, String path, IntFunction<byte[]> payloadOf, int clients, int warmup, int measure,
                            Group group) throws Exception {
        long[][] lat = new long[clients][];
        int[] count = new int[clients];
        var start = new CountDownLatch(1);
        var done = new CountDownLatch(clients);
        long t0 = System.nanoTime();
        long measureFrom = t0 + warmup * 1_000_000_000L, until = measureFrom + measure * 1_000_000_000L;
        Thread[] ts = new Thread[clients];
        Exception[] failure = new Exception[1];
        for (int c = 0; c < clients; c++) {
            int id = c;
            ts[c] = Thread.ofPlatform().name("load-" + c).start(() -> {
                long[] mine = new long[1 << 20];
                int n = 0;
                try (var client = new RawHttpClient(addr, path, payloadOf.apply(id))) {
                    start.await();
                    for (long now = System.nanoTime(); now < until; ) {
                        client.call();
                        long end = System.nanoTime();
                        if (now >= measureFrom && n < mine.length) mine[n++] = end - now;
                        now = end;
                    }
                } catch (Exception ex) {
                    failure[0] = ex;
                } finally {
                    lat[id] = mine;
                    count[id] = n;
                    done.countDown();
                }
            });
        }
        start.countDown();
        done.await();
        if (failure[0] != null) throw failure[0];
        List<Result> out = new ArrayList<>();
        out.add(result(name, lat, count, c -> true, measure));
        if (group != null) {
            out.add(result(group.inName(), lat, count, group.in(), measure));
            out.add(result(group.outName(), lat, count, group.in().negate(), measure));
        }
        for (Result r : out) System.out.println(r.row());
        return out;
    }

    private static Result result(String name, long[][] lat, int[] count, IntPredicate clients, int measure) {
        int total = 0;
        for (int c = 0; c < count.length; c++) if (clients.test(c)) total += count[c];
        long[] all = new long[total];
        int k = 0;
        for (int c = 0; c < count.length; c++) if (clients.test(c)) { System.arraycopy(lat[c], 0, all, k, count[c]); k += count[c]; }
        Arrays.sort(all);
        return new Result(name, total / (double) measure, pct(all, 0.50), pct(all, 0.99), pct(all, 0.999));
    }

    static double pct(long[] sorted, double p) {
        if (sorted.length == 0) return Double.NaN;
        return sorted[Math.min(sorted.length - 1, (int) Math.ceil(p * sorted.length) - 1)] / 1e6;
    }

    static byte[] once(InetSocketAddress addr, String path, byte[] payload) throws IOException {
        var http = HttpClient.newHttpClient();
        try {
            var req = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + addr.getPort() + path))
                    .POST(HttpRequest.BodyPublishers.ofByteArray(payload)).build();
            return http.send(req, HttpResponse.BodyHandlers.ofByteArray()).body();
        } catch (InterruptedException e) {
            throw new IOException(e);
        }
    }

    /** The floor: read the request, answer the fixed bytes. Same JDK server, same worker count. */
    static HttpServer floorServer(int threads, byte[] reply) throws IOException {
        HttpServer s = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 1024);
        ExecutorService pool = Executors.newFixedThreadPool(threads, Thread.ofPlatform().daemon(true).factory());
        s.setExecutor(pool);
        s.createContext("/floor", ex -> {
            byte[] buf = new byte[64 * 1024];
            try (ex; InputStream in = ex.getRequestBody()) {
                while (in.read(buf) >= 0) { /* drain */ }
                ex.getResponseHeaders().set("Content-Type", "application/json");
                ex.sendResponseHeaders(200, reply.length);
                try (OutputStream out = ex.getResponseBody()) { out.write(reply); }
            }
        });
        s.start();
        return s;
    }

    /**
     * Who runs as which UID. {@code uidRule}: the extender's one-UID-per-daemon rule (on by default in the product);
     * {@code podPercent} of the preloaded pods and {@code requestPercent} of the clients' pods run as one of
     * {@code uids} UIDs (1000, 1001, ...); the others set no runAsUser. Preloading books pods under the rule, so a
     * node holds pods of one UID at most (as the extender would have placed them).
     */
    record Mix(boolean uidRule, int podPercent, int requestPercent, int uids) {
        static final Mix NONE = new Mix(true, 0, 0, 1);

        Mix {
            if (podPercent < 0 || podPercent > 100 || requestPercent < 0 || requestPercent > 100)
                throw new IllegalArgumentException("UID shares are percentages 0-100, got " + podPercent + " and " + requestPercent);
            if (uids < 1) throw new IllegalArgumentException("uids must be >= 1, got " + uids);
        }

        /**
         * From {@code [uid-rule default|on|off] [uid-pods-%] [uid-requests-%] [uids]} at {@code args[from..]}; {@code default}
         * (also when absent) is the extender's own default ({@link ExtenderConfig#defaults}), so the benchmark runs what the
         * product runs unless told otherwise.
         */
        static Mix of(String[] args, int from) {
            String rule = args.length > from ? args[from] : "default";
            boolean on = switch (rule) {
                case "default" -> ExtenderConfig.defaults().uidRule();
                case "on" -> true;
                case "off" -> false;
                default -> throw new IllegalArgumentException("uid rule is default, on or off, got " + rule);
            };
            return new Mix(on, arg(args, from + 1, 0), arg(args, from + 2, 0), arg(args, from + 3, 4));
        }

        /** The UID preloaded pod {@code p} runs as, or none. */
        OptionalLong pod(int p) {
            return (p * 37 % 100) < podPercent ? OptionalLong.of(1000 + p % uids) : OptionalLong.empty();
        }

        /** The UID client {@code c} of {@code clients} sends its pod with, or none. */
        OptionalLong request(int c, int clients) {
            return c * 100 < requestPercent * clients ? OptionalLong.of(1000 + c % uids) : OptionalLong.empty();
        }

        @Override public String toString() {
            return String.format(Locale.ROOT, "UID rule %s%s, %d%% of preloaded pods and %d%% of requests run as one of %d UIDs",
                    uidRule ? "on" : "off", uidRule == ExtenderConfig.defaults().uidRule() ? " (the extender's default)" : " (not the extender's default)",
                    podPercent, requestPercent, uids);
        }
    }

    static List<String> preload(Ledger ledger, int nodes, int pods) { return preload(ledger, nodes, pods, Mix.NONE); }

    /** Preloaded pods' namespaces under {@code -Dbench.faultDomain=tenant}: each a tenant domain of its own. */
    static final int TENANTS = 16;

    /**
     * The fault-domain kind of every namespace, {@code -Dbench.faultDomain=node|tenant|pod}: {@code node} (the default)
     * is the path without fault domains, every pod on the node daemon; {@code tenant} puts the preloaded pods in
     * {@value #TENANTS} tenant domains and the asked pod in another, so prioritize weighs a new daemon on every booked GPU.
     */
    static Kind faultDomain() { return Kind.parseOrThrow(System.getProperty("bench.faultDomain", "node"), "-Dbench.faultDomain"); }

    static List<String> preload(Ledger ledger, int nodes, int pods, Mix mix) {
        List<String> names = new ArrayList<>(nodes);
        for (int n = 0; n < nodes; n++) {
            String name = String.format(Locale.ROOT, "gpu-node-%05d", n);
            names.add(name);
            List<Gpu> gpus = new ArrayList<>();
            for (int g = 0; g < 8; g++) gpus.add(new Gpu(g, "GPU-" + name + "-" + g, "NVIDIA H200", 143_771, true));
            ledger.upsertNode(new NodeInventory(name, gpus));
        }
        var engine = new PlacementEngine(ledger, new BinpackPolicy(true));
        Random rnd = new Random(7);
        int placed = 0;
        for (int p = 0; p < pods; p++) {
            int count = p % 10 == 0 ? 2 : 1;
            long mib = (1 + rnd.nextInt(16)) * 1024L * count;
            int core = p % 4 == 0 ? 10 * count : 0;
            var d = withUid(GpuDemand.simple(mib, core, count, Names.DEFAULT_CONTEXT_RESERVE_MIB), mix.pod(p));
            if (faultDomain() != Kind.NODE) d = d.withDomain(ServingDomain.of(faultDomain(), "bench-" + p % TENANTS, "pod-" + p, d.runAsUser(), count));
            for (int attempt = 0; attempt < 5; attempt++) {
                if (engine.assume(PodKey.of("bench", "pod-" + p), "", names.get(rnd.nextInt(nodes)), d) instanceof AssumeResult.Assumed a) {
                    ledger.confirmBound(a.allocation().pod(), a.allocation().node());
                    placed++;
                    break;
                }
            }
        }
        long withUids = ledger.nodes().stream().filter(s -> !s.uids().isEmpty()).count();
        System.out.printf(Locale.ROOT, "preloaded %d of %d pods in %s domains; %d MiB booked of %d; %d of %d nodes hold pods of a UID (%s)%n", placed, pods,
                faultDomain().label(),
                ledger.nodes().stream().mapToLong(s -> s.allocatedMib()).sum(), ledger.nodes().stream().mapToLong(s -> s.totalMib()).sum(),
                withUids, nodes, mix);
        return names;
    }

    static GpuDemand withUid(GpuDemand d, OptionalLong uid) {
        return new GpuDemand(d.gpuCount(), d.chargeMib(), d.chargeCore(), d.reserveMib(), d.requestedMib(), d.containers(), uid, d.domain());
    }

    /** kube-scheduler's ExtenderArgs for a realistic training pod that sets no runAsUser, with every node name. */
    static byte[] payload(List<String> names, int core) { return payload(names, core, OptionalLong.empty()); }

    /** The same pod running as {@code uid} (pod-level {@code securityContext.runAsUser}), or as its image's user. */
    static byte[] payload(List<String> names, int core, OptionalLong uid) {
        String pod = core > 0 ? POD.replace("\"aliyun.com/gpu-core.percentage\":\"30\"", "\"aliyun.com/gpu-core.percentage\":\"" + core + "\"")
                : POD.replace(",\"aliyun.com/gpu-core.percentage\":\"30\"", "");
        pod = pod.replace("\"securityContext\":{\"runAsUser\":1000}", uid.isPresent() ? "\"securityContext\":{\"runAsUser\":" + uid.getAsLong() + "}" : "\"securityContext\":{}");
        if (uid.isPresent()) // each UID its own pod: a filter finds that pod's hold (the pick, prioritize) where its last filter left it
            pod = pod.replace("\"name\":\"train-7f9c-0\"", "\"name\":\"train-7f9c-u" + uid.getAsLong() + "\"")
                    .replace("\"uid\":\"6f1c9a9e-2b0e-4d7a-9a57-1b2c3d4e5f60\"", "\"uid\":\"6f1c9a9e-2b0e-4d7a-9a57-00000000" + uid.getAsLong() + "\"");
        StringBuilder sb = new StringBuilder(pod.length() + names.size() * 20);
        sb.append("{\"Pod\":").append(pod).append(",\"Nodes\":null,\"NodeNames\":[");
        for (int i = 0; i < names.size(); i++) sb.append(i == 0 ? "\"" : ",\"").append(names.get(i)).append('"');
        sb.append("]}");
        return sb.toString().getBytes(StandardCharsets.UTF_8);
    }

    static final String POD = """
            {"metadata":{"name":"train-7f9c-0","generateName":"train-7f9c-","namespace":"ml-team","uid":"6f1c9a9e-2b0e-4d7a-9a57-1b2c3d4e5f60",\
            "resourceVersion":"123456","creationTimestamp":"2026-11-30T03:00:00Z","labels":{"app":"train","batch.kubernetes.io/job-name":"train-7f9c",\
            "controller-uid":"0a1b2c3d"},"annotations":{"kubectl.kubernetes.io/last-applied-configuration":"{\\"apiVersion\\":\\"batch/v1\\"}"},\
            "ownerReferences":[{"apiVersion":"batch/v1","kind":"Job","name":"train-7f9c","uid":"0a1b2c3d","controller":true,"blockOwnerDeletion":true}],\
            "managedFields":[{"manager":"kube-controller-manager","operation":"Update","apiVersion":"v1","time":"2026-11-30T03:00:00Z","fieldsType":"FieldsV1",\
            "fieldsV1":{"f:metadata":{"f:labels":{".":{},"f:app":{}}}}}]},\
            "spec":{"volumes":[{"name":"kube-api-access-abcde","projected":{"sources":[{"serviceAccountToken":{"expirationSeconds":3607,"path":"token"}}],"defaultMode":420}},\
            {"name":"data","persistentVolumeClaim":{"claimName":"datasets"}}],\
            "initContainers":[{"name":"fetch","image":"registry.example/fetch:1.2","command":["fetch","--to","/data"],"resources":{"limits":{"cpu":"1","memory":"1Gi"}}}],\
            "containers":[{"name":"train","image":"registry.example/pytorch:2.5-cuda12.4","command":["python","train.py","--epochs","3"],\
            "env":[{"name":"NCCL_DEBUG","value":"INFO"},{"name":"POD_NAME","valueFrom":{"fieldRef":{"apiVersion":"v1","fieldPath":"metadata.name"}}}],\
            "resources":{"limits":{"aliyun.com/gpu-mem":"7","aliyun.com/gpu-core.percentage":"30","cpu":"4","memory":"16Gi"},\
            "requests":{"aliyun.com/gpu-mem":"7","aliyun.com/gpu-core.percentage":"30","cpu":"2","memory":"8Gi"}},\
            "volumeMounts":[{"name":"data","mountPath":"/data"},{"name":"kube-api-access-abcde","readOnly":true,"mountPath":"/var/run/secrets/kubernetes.io/serviceaccount"}],\
            "terminationMessagePath":"/dev/termination-log","terminationMessagePolicy":"File","imagePullPolicy":"IfNotPresent"},\
            {"name":"metrics","image":"registry.example/exporter:0.9","ports":[{"containerPort":9400,"protocol":"TCP"}],"resources":{"limits":{"cpu":"100m","memory":"64Mi"}}}],\
            "restartPolicy":"Never","terminationGracePeriodSeconds":30,"dnsPolicy":"ClusterFirst","serviceAccountName":"default",\
            "securityContext":{"runAsUser":1000},"schedulerName":"default-scheduler",\
            "tolerations":[{"key":"node.kubernetes.io/not-ready","operator":"Exists","effect":"NoExecute","tolerationSeconds":300},\
            {"key":"nvidia.com/gpu","operator":"Exists","effect":"NoSchedule"}],"priority":0,"enableServiceLinks":true,"preemptionPolicy":"PreemptLowerPriority"},\
            "status":{"phase":"Pending","conditions":[{"type":"PodScheduled","status":"False","lastProbeTime":null,\
            "lastTransitionTime":"2026-11-30T03:00:00Z","reason":"Unschedulable"}],"qosClass":"Burstable"}}""";

    static int arg(String[] a, int i, int def) { return a.length > i ? Integer.parseInt(a[i]) : def; }

    /** The benchmark never binds. */
    static final class NoApi implements PodApi {
        @Override public KubePod get(PodKey pod) throws Failure { throw new Failure(0, "no API server in the benchmark"); }
        @Override public void bind(PodKey pod, String uid, String node, Map<String, String> a) throws Failure { throw new Failure(0, "no API server"); }
    }
}
