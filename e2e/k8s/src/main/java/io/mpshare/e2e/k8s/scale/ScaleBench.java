package io.mpshare.e2e.k8s.scale;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.mpshare.core.Names;
import io.mpshare.e2e.k8s.Binaries;
import io.mpshare.e2e.k8s.Bookings;
import io.mpshare.e2e.k8s.Cluster;
import io.mpshare.e2e.k8s.Components;
import io.mpshare.e2e.k8s.ControlPlane;
import io.mpshare.e2e.k8s.GpuNodes;
import io.mpshare.e2e.k8s.ManagedProcess;
import io.mpshare.e2e.k8s.Metrics;
import io.mpshare.e2e.k8s.ProcessStats;
import io.mpshare.testing.Pods;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Scheduling at cluster scale on the real control plane (bench/run-k8s-scale.sh, docs/benchmarks.md): N fake GPU
 * nodes with bookings ({@link ScaleCluster}), then in one run on one machine a stream of pods that ask no GPU through
 * kube-scheduler alone (the chart's profile: the extender's managedResources leave them out), a stream of as many GPU
 * pods through kube-scheduler and the extender, and optionally the no-GPU stream again through a profile with
 * kube-scheduler's adaptive percentageOfNodesToScore. Per stream: pods per second, creation-to-bound p50/p99,
 * FailedScheduling events, the CPU each process used per pod, kube-scheduler's and the extender's own timings; at
 * the end over-commit recomputed from every pod's allocation annotation.
 *
 * <p>Scale settings (printed with the results): kube-apiserver {@code --max-requests-inflight=3000
 * --max-mutating-requests-inflight=1000} (the large-cluster values of Kubernetes' own scale tests, so that API
 * priority and fairness does not queue the streams), etcd's quota 8 GiB (data in memory, as the tier always does),
 * kube-scheduler {@code clientConnection.qps} and {@code burst} raised from 50/100 (its Bindings and Events would
 * otherwise cap the no-GPU stream near 50 pods/s, while the GPU stream's Bindings go through the extender's client),
 * and this generator's client without a rate limit, creating from {@code --threads} threads.
 */
public final class ScaleBench {
    static final String PROFILE = "scale-sched", DEFAULT_PROFILE = "scale-default", ALONE_PROFILE = "scale-alone", NS = "scale", BOOKED_NS = "scale-pre";

    public static void main(String[] args) throws Exception {
        ScaleOptions o;
        try {
            o = ScaleOptions.parse(List.of(args));
        } catch (IllegalArgumentException e) {
            System.err.println("scale bench: " + e.getMessage());
            System.exit(2);
            return;
        }
        Path root = Cluster.findRepoRoot(Path.of(""));
        Binaries bin = switch (Binaries.locate(System.getenv(), root)) {
            case Binaries.Found f -> f.binaries();
            case Binaries.Missing m -> { System.err.println("scale bench: " + m.why()); System.exit(2); yield null; }
        };
        new ScaleBench(o, root, bin).run();
        System.exit(0); // helm-java's native library keeps a thread alive
    }

    private final ScaleOptions o;
    private final Path root;
    private final Binaries bin;
    private final Path target;

    ScaleBench(ScaleOptions o, Path root, Binaries bin) {
        this.o = o;
        this.root = root;
        this.bin = bin;
        this.target = root.resolve("e2e/k8s/target/scale-bench");
    }

    static ControlPlane.Tuning tuning(String serverCpus) {
        return new ControlPlane.Tuning(serverCpus, List.of("--quota-backend-bytes=" + (8L << 30)),
                List.of("--max-requests-inflight=3000", "--max-mutating-requests-inflight=1000"));
    }

    void run() throws Exception {
        String stamp = LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss"));
        Path logs = target.resolve("logs-" + stamp);
        say("machine: %d CPUs (this generator may use %s), %s; load average %s", Runtime.getRuntime().availableProcessors(), affinity(),
                cpuModel(), ProcessStats.loadAverage());
        say("settings: %s", o);
        long t = System.nanoTime();
        try (Cluster cluster = Cluster.start(bin, root, target.resolve("run-" + stamp), logs, 0, Map.of(), tuning(o.serverCpus()))) {
            KubernetesClient c = cluster.client();
            cluster.controlPlane().createNamespace(NS, Map.of());
            cluster.controlPlane().createNamespace(BOOKED_NS, Map.of());
            ScaleCluster sc = ScaleCluster.generate(o.nodes(), o.fill(), o.seed(), BOOKED_NS, PROFILE, Map.of());
            say("control plane up in %.0f s; servers pinned to CPUs '%s'", (System.nanoTime() - t) / 1e9, o.serverCpus());
            t = System.nanoTime();
            parallel(sc.nodes(), s -> GpuNodes.create(c, s));
            say("%d nodes created in %.0f s (models: %s)", sc.nodes().size(), (System.nanoTime() - t) / 1e9, models(sc));
            t = System.nanoTime();
            parallel(sc.booked(), p -> c.resource(p).create());
            say("%d booked pods created in %.0f s: %.0f%% of GPU memory booked", sc.booked().size(), (System.nanoTime() - t) / 1e9, 100 * sc.bookedShare());

            Components comp = cluster.components();
            var ext = comp.extender("scale-extender", ControlPlane.freePort(), List.of("-Xmx" + o.extenderHeap()),
                    extenderArgs(), logs);
            var sched = comp.scheduler("scale-scheduler", Components.SchedulerSettings.single(PROFILE, ext.port()), this::scaleConfig,
                    List.of(allowPaths()), logs);
            // every booking made before the extender started is in its ledger (a pod it could not read would leave its GPUs free)
            double bound = comp.metrics(ext.url() + "/metrics").sum("mpshare_extender_pods", "phase=\"BOUND\"");
            if (bound != sc.booked().size())
                throw new IllegalStateException("the extender counts " + (long) bound + " bound bookings of the " + sc.booked().size() + " made: see " + ext.process().log());
            say("extender and kube-scheduler up, %d bookings in the extender's ledger; load average %s", (long) bound, ProcessStats.loadAverage());

            for (int round = 1; round <= o.warmupRounds() && o.warmup() > 0; round++) { // uncounted: the JIT and the caches of every process warm up
                String n = o.warmupRounds() == 1 ? "" : "-" + round;
                var plain = PodStream.run(c, NS, "warm-up" + n + ", no GPU", plainPods("warm-plain" + n, o.warmup(), PROFILE), o.threads(), o.rate(), o.timeout());
                double cpu0 = ProcessStats.cpuSeconds(ext.process().pid()).orElse(Double.NaN), jit0 = compileSeconds(ext.process());
                var gpu = PodStream.run(c, NS, "warm-up" + n + ", GPU", gpuPods("warm-gpu" + n, o.warmup(), new Random(o.seed() + 1 + 10L * round), PROFILE), o.threads(), o.rate(), o.timeout());
                double cpu = ProcessStats.cpuSeconds(ext.process().pid()).orElse(Double.NaN) - cpu0, jit = compileSeconds(ext.process()) - jit0;
                say("warm-up round %d (not counted): no GPU %.1f pods/s, GPU %.1f pods/s; the extender's CPU in the GPU round %.1f ms per pod, of which its JIT compilers %.1f ms (%.0f%%)",
                        round, plain.perSecond(), gpu.perSecond(), 1000 * cpu / o.warmup(), 1000 * jit / o.warmup(), 100 * jit / Math.max(cpu, 1e-9));
            }
            List<Measured> measured = new ArrayList<>();
            // the stream measured second meets a cluster with the first one's pods bound too; --gpu-first swaps them (the
            // report keeps the no-GPU stream first)
            Callable<Measured> plainStream = () -> measure(cluster, ext, sched, "no GPU, kube-scheduler alone (" + PROFILE + ")", "plain", plainPods("plain", o.pods(), PROFILE), false);
            Callable<Measured> gpuStream = () -> measure(cluster, ext, sched, "GPU, kube-scheduler + extender (" + PROFILE + ")", "gpu", gpuPods("gpu", o.pods(), new Random(o.seed() + 2), PROFILE), true);
            if (o.gpuFirst()) {
                Measured g = gpuStream.call();
                measured.add(plainStream.call());
                measured.add(g);
            } else {
                measured.add(plainStream.call());
                measured.add(gpuStream.call());
            }
            if (o.defaultStream()) { // what percentageOfNodesToScore: 100 costs: both kinds through kube-scheduler's adaptive default
                measured.add(measure(cluster, ext, sched, "no GPU, adaptive percentageOfNodesToScore (" + DEFAULT_PROFILE + ")", "adaptive",
                        plainPods("adaptive", o.pods(), DEFAULT_PROFILE), false));
                measured.add(measure(cluster, ext, sched, "GPU, adaptive percentageOfNodesToScore (" + DEFAULT_PROFILE + ")", "adaptive-gpu",
                        gpuPods("adaptive-gpu", o.pods(), new Random(o.seed() + 3), DEFAULT_PROFILE), false));
            }
            if (o.gpuAlone()) { // the same GPU pods through a kube-scheduler with no extender: what kube-scheduler's own checks of an extended resource cost
                var alone = comp.scheduler("alone-scheduler", Components.SchedulerSettings.single(ALONE_PROFILE, ext.port()), this::aloneConfig,
                        List.of(allowPaths()), logs);
                measured.add(measure(cluster, ext, alone, "GPU, kube-scheduler alone, no extender (" + ALONE_PROFILE + ")", "gpu-alone",
                        gpuPods("gpu-alone", o.pods(), new Random(o.seed() + 2), ALONE_PROFILE), false));
            }

            List<Pod> all = new ArrayList<>(c.pods().inNamespace(NS).list().getItems());
            all.addAll(c.pods().inNamespace(BOOKED_NS).list().getItems());
            List<Node> nodes = c.nodes().list().getItems();
            List<String> over = Bookings.overCommit(all, nodes);
            Map<String, Integer> failedScheduling = failedScheduling(c);
            report(cluster, measured, failedScheduling, over, all);
        }
    }

    private List<String> extenderArgs() {
        List<String> a = new ArrayList<>(List.of("--scheduler-name=" + PROFILE + (o.defaultStream() ? "," + DEFAULT_PROFILE : "")));
        a.addAll(o.extenderArgs());
        return a;
    }

    /** The chart's configuration with the client's rate raised and, for the adaptive streams, a profile with kube-scheduler's adaptive percentage. */
    @SuppressWarnings("unchecked")
    Map<String, Object> scaleConfig(Map<String, Object> conf) {
        Map<String, Object> out = new LinkedHashMap<>(conf);
        Map<String, Object> client = new LinkedHashMap<>((Map<String, Object>) conf.get("clientConnection"));
        client.put("qps", o.qps());
        client.put("burst", o.qps());
        out.put("clientConnection", client);
        List<Map<String, Object>> profiles = new ArrayList<>((List<Map<String, Object>>) conf.get("profiles"));
        if (o.defaultStream()) {
            Map<String, Object> adaptive = new LinkedHashMap<>(profiles.getFirst());
            adaptive.put("schedulerName", DEFAULT_PROFILE);
            adaptive.remove("percentageOfNodesToScore");
            profiles.add(adaptive);
        }
        out.put("profiles", profiles);
        return out;
    }

    /** What the bench's kube-schedulers answer without authorization: probes, metrics and, with {@code --scheduler-pprof}, profiles. */
    private String allowPaths() {
        return "--authorization-always-allow-paths=/healthz,/readyz,/livez,/metrics" + (o.pprof() != null ? ",/debug/pprof/*" : "");
    }

    /** Seconds of kube-scheduler's CPU profile taken from the start of a stream: shorter than the quickest stream at 500 nodes. */
    static final int PPROF_SECONDS = 4;

    /** kube-scheduler's CPU profile over the first {@link #PPROF_SECONDS} of a stream, into {@code --scheduler-pprof}'s DIR/KIND.pprof. */
    private void schedulerProfile(Components comp, Components.Scheduler sched, String kind) {
        try {
            Files.createDirectories(o.pprof());
            Path out = o.pprof().resolve(kind + ".pprof");
            Files.write(out, comp.fetch(sched.url() + "/debug/pprof/profile?seconds=" + PPROF_SECONDS, Duration.ofSeconds(PPROF_SECONDS + 30)));
            say("kube-scheduler's CPU profile over the first %d s of the %s stream: %s", PPROF_SECONDS, kind, out);
        } catch (IOException | RuntimeException e) {
            say("kube-scheduler's CPU profile of the %s stream: not taken (%s)", kind, e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * The configuration of {@code --gpu-alone}'s second kube-scheduler: the chart's, as {@link #scaleConfig} raises it, with
     * no extender (it binds with its own binder and checks {@code aliyun.com/gpu-mem} against node totals only) and one
     * profile, {@link #ALONE_PROFILE}.
     */
    @SuppressWarnings("unchecked")
    Map<String, Object> aloneConfig(Map<String, Object> conf) {
        Map<String, Object> out = new LinkedHashMap<>(scaleConfig(conf));
        out.remove("extenders");
        Map<String, Object> profile = new LinkedHashMap<>(((List<Map<String, Object>>) out.get("profiles")).getFirst());
        profile.put("schedulerName", ALONE_PROFILE);
        out.put("profiles", List.of(profile));
        return out;
    }

    /** One measured stream with everything read around it. */
    record Measured(String kind, PodStream.Result result, Map<String, Double> cpu, Metrics scheduler, Metrics extender, Metrics apiserver,
                    String loadBefore, String loadAfter) {}

    Measured measure(Cluster cluster, Components.Extender ext, Components.Scheduler sched, String name, String kind, List<Pod> pods, boolean gpu) throws Exception {
        Components comp = cluster.components();
        Metrics s0 = comp.metrics(sched.url() + "/metrics"), e0 = comp.metrics(ext.url() + "/metrics"), a0 = Metrics.parse(cluster.client().raw("/metrics"));
        String load0 = ProcessStats.loadAverage();
        Map<String, Double> cpu0 = ProcessStats.cpuSeconds(cluster.controlPlane(), "generator");
        double compile0 = compileSeconds(ext.process());
        boolean jfr = gpu && o.jfr() != null;
        if (jfr) jcmd(ext.process(), "JFR.start", "name=scale", "settings=profile");
        Thread profile = o.pprof() == null ? null : Thread.ofPlatform().name("pprof-" + kind).start(() -> schedulerProfile(comp, sched, kind));
        PodStream.Result r = PodStream.run(cluster.client(), NS, name, pods, o.threads(), o.rate(), o.timeout());
        if (profile != null) profile.join();
        if (jfr) jcmd(ext.process(), "JFR.stop", "name=scale", "filename=" + o.jfr());
        Map<String, Double> cpu1 = ProcessStats.cpuSeconds(cluster.controlPlane(), "generator");
        Map<String, Double> cpu = new TreeMap<>();
        String load1 = ProcessStats.loadAverage();
        cpu.put("extender JIT", compileSeconds(ext.process()) - compile0); // part of the extender's CPU
        Metrics s1 = comp.metrics(sched.url() + "/metrics"), e1 = comp.metrics(ext.url() + "/metrics"), a1 = Metrics.parse(cluster.client().raw("/metrics"));
        cpu1.forEach((k, v) -> cpu.put(k, v - cpu0.getOrDefault(k, 0.0)));
        say("%s: %.1f pods/s (%d of %d bound in %.1f s), p50 %.0f ms, p99 %.0f ms; load average %s -> %s", name, r.perSecond(), r.bound(), r.pods(),
                r.seconds(), r.p50(), r.p99(), load0, load1);
        return new Measured(kind, r, cpu, s1.minus(s0), e1.minus(e0), a1.minus(a0), load0, load1);
    }

    void report(Cluster cluster, List<Measured> ms, Map<String, Integer> failedScheduling, List<String> over, List<Pod> all) {
        System.out.println();
        System.out.printf(Locale.ROOT, "## %d nodes x 8 GPUs, %d pods per stream (%s)%n%n", o.nodes(), o.pods(), o.rate() > 0 ? o.rate() + " pods/s offered" : "created at once");
        System.out.println("| stream | pods | bound | s | pods/s | p50 ms | p99 ms | max ms |");
        System.out.println("|---|---|---|---|---|---|---|---|");
        for (Measured m : ms) System.out.println(m.result().row());
        double plain = ms.getFirst().result().perSecond(), gpu = ms.get(1).result().perSecond();
        System.out.printf(Locale.ROOT, "%nGPU stream / kube-scheduler alone = **%.2f** (goal >= %s at %d nodes; the %s stream ran first)%n", gpu / plain,
                o.nodes() >= 5000 ? "0.5" : "0.8", o.nodes(), o.gpuFirst() ? "GPU" : "no-GPU");
        Map<String, Double> rate = new LinkedHashMap<>();
        for (Measured m : ms) rate.put(m.kind(), m.result().perSecond());
        if (rate.containsKey("adaptive") && rate.containsKey("adaptive-gpu"))
            System.out.printf(Locale.ROOT, "with kube-scheduler's adaptive percentageOfNodesToScore: GPU / no GPU = %.2f; the chart's 100 against adaptive: no GPU %.2f, GPU %.2f%n",
                    rate.get("adaptive-gpu") / rate.get("adaptive"), plain / rate.get("adaptive"), gpu / rate.get("adaptive-gpu"));
        if (rate.containsKey("gpu-alone"))
            System.out.printf(Locale.ROOT, "the same GPU pods through kube-scheduler alone (no extender, node totals only) / no GPU = %.2f; through the extender / alone = %.2f%n",
                    rate.get("gpu-alone") / plain, gpu / rate.get("gpu-alone"));
        System.out.println();
        System.out.println("| stream | FailedScheduling events | attempts scheduled / unschedulable / error | extender bind failures | load average before -> after |");
        System.out.println("|---|---|---|---|---|");
        for (Measured m : ms) {
            Metrics s = m.scheduler();
            System.out.printf(Locale.ROOT, "| %s | %d | %.0f / %.0f / %.0f | %.0f | %s -> %s |%n", m.kind(), failedScheduling.getOrDefault(m.kind(), 0),
                    s.sum("scheduler_schedule_attempts_total", "result=\"scheduled\""), s.sum("scheduler_schedule_attempts_total", "result=\"unschedulable\""),
                    s.sum("scheduler_schedule_attempts_total", "result=\"error\""), m.extender().sum("mpshare_extender_failures_total", "verb=\"bind\""),
                    m.loadBefore(), m.loadAfter());
        }
        System.out.println();
        System.out.println("CPU ms per pod bound (process CPU time during the stream / pods bound):");
        Set<String> seen = new LinkedHashSet<>(); // a process started for a later stream (--gpu-alone's scheduler) has no figure before it
        for (Measured m : ms) seen.addAll(m.cpu().keySet());
        List<String> procs = new ArrayList<>(seen);
        System.out.println("| stream | " + String.join(" | ", procs) + " |");
        System.out.println("|---|" + "---|".repeat(procs.size()));
        for (Measured m : ms) {
            StringBuilder row = new StringBuilder("| " + m.kind() + " |");
            for (String p : procs) row.append(m.cpu().containsKey(p) ? String.format(Locale.ROOT, " %.2f |", 1000 * m.cpu().get(p) / Math.max(1, m.result().bound())) : " — |");
            System.out.println(row);
        }
        System.out.println();
        System.out.println("kube-scheduler, mean ms per scheduling attempt (its /metrics): attempt | algorithm | Filter | PreScore | Score | rest of the algorithm (extender filter + prioritize)");
        for (Measured m : ms) {
            Metrics s = m.scheduler();
            String prof = "profile=\"" + (m.kind().startsWith("adaptive") ? DEFAULT_PROFILE : m.kind().equals("gpu-alone") ? ALONE_PROFILE : PROFILE) + "\"";
            double attempt = 1000 * s.mean("scheduler_scheduling_attempt_duration_seconds", prof), algo = 1000 * s.mean("scheduler_scheduling_algorithm_duration_seconds");
            double filter = 1000 * s.mean("scheduler_framework_extension_point_duration_seconds", prof, "extension_point=\"Filter\"");
            double preScore = 1000 * s.mean("scheduler_framework_extension_point_duration_seconds", prof, "extension_point=\"PreScore\"");
            double score = 1000 * s.mean("scheduler_framework_extension_point_duration_seconds", prof, "extension_point=\"Score\"");
            double preFilter = 1000 * s.mean("scheduler_framework_extension_point_duration_seconds", prof, "extension_point=\"PreFilter\"");
            System.out.printf(Locale.ROOT, "  %-9s %.2f | %.2f | %.2f | %.2f | %.2f | %.2f%n", m.kind(), attempt, algo, filter, preScore, score,
                    algo - filter - preScore - score - (Double.isNaN(preFilter) ? 0 : preFilter));
        }
        System.out.println();
        System.out.println("kube-apiserver requests per pod bound (apiserver_request_total by verb and resource; every client, the generator's creates and scrapes included):");
        for (Measured m : ms) {
            StringBuilder row = new StringBuilder("  " + m.kind() + ":");
            requestsByVerb(m.apiserver()).forEach((k, v) -> { if (v / Math.max(1, m.result().bound()) >= 0.005)
                row.append(String.format(Locale.ROOT, " %s %.2f,", k, v / Math.max(1, m.result().bound()))); });
            System.out.println(row);
        }
        Measured g = ms.get(1);
        System.out.print("extender, per verb during the GPU stream (server side, read to reply written): ");
        for (String verb : List.of("filter", "prioritize", "bind")) {
            double n = g.extender().sum("mpshare_extender_request_duration_seconds_count", "verb=\"" + verb + "\"");
            if (n > 0) System.out.printf(Locale.ROOT, "%s %.0f calls, mean %.2f ms; ", verb, n, 1000 * g.extender().mean("mpshare_extender_request_duration_seconds", "verb=\"" + verb + "\""));
        }
        System.out.println();
        System.out.print("resident memory at the end (MiB): ");
        for (ManagedProcess p : cluster.controlPlane().processes()) ProcessStats.rssMib(p.pid()).ifPresent(m -> System.out.printf(Locale.ROOT, "%s %d, ", p.name(), m));
        ProcessStats.rssMib(ProcessHandle.current().pid()).ifPresent(m -> System.out.printf(Locale.ROOT, "generator %d", m));
        System.out.println();
        long booked = all.stream().filter(p -> p.getMetadata().getAnnotations() != null && p.getMetadata().getAnnotations().containsKey(Names.ANN_ALLOCATION)).count();
        System.out.printf(Locale.ROOT, "over-commit: %s (%d bookings checked against the nodes' inventories)%n", over.isEmpty() ? "none" : over.size() + " problems: " + over.subList(0, Math.min(5, over.size())), booked);
        System.out.printf(Locale.ROOT, "load average at the end: %s%n", ProcessStats.loadAverage());
    }

    private static final Pattern LABEL = Pattern.compile("(\\w+)=\"([^\"]*)\"");

    /** apiserver_request_total summed over codes and clients, by "VERB resource[/subresource]". */
    static Map<String, Double> requestsByVerb(Metrics m) {
        Map<String, Double> out = new TreeMap<>();
        m.samples().forEach((k, v) -> {
            if (!k.startsWith("apiserver_request_total{") || v == 0) return;
            Map<String, String> l = new HashMap<>();
            for (Matcher x = LABEL.matcher(k); x.find(); ) l.put(x.group(1), x.group(2));
            String sub = l.getOrDefault("subresource", "");
            out.merge(l.getOrDefault("verb", "?") + " " + l.getOrDefault("resource", "?") + (sub.isEmpty() ? "" : "/" + sub), v, Double::sum);
        });
        return out;
    }

    /** FailedScheduling events by stream kind (the pod name's prefix), counting each event's series. */
    static Map<String, Integer> failedScheduling(KubernetesClient c) {
        Map<String, Integer> out = new TreeMap<>();
        for (Event e : c.v1().events().inNamespace(NS).list().getItems()) {
            if (!"FailedScheduling".equals(e.getReason())) continue;
            String pod = e.getInvolvedObject().getName();
            int n = e.getSeries() != null && e.getSeries().getCount() != null ? e.getSeries().getCount() : e.getCount() == null ? 1 : e.getCount();
            out.merge(pod.substring(0, pod.lastIndexOf('-')), n, Integer::sum);
        }
        return out;
    }

    static List<Pod> plainPods(String prefix, int n, String profile) {
        List<Pod> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            Pod p = Pods.pod(prefix + "-" + i).namespace(NS).cpu("1").memory("4Gi").build();
            clean(p, profile);
            out.add(p);
        }
        return out;
    }

    /**
     * GPU pods as inference services ask: one GPU of 2, 4, 8 or 12 GiB (weights 3, 3, 2, 1), a fifth of them with 30
     * percent of the cores; one in twenty over two GPUs (8 GiB each); each 1 CPU and 4 GiB of memory.
     */
    static List<Pod> gpuPods(String prefix, int n, Random r, String profile) {
        int[] gib = {2, 2, 2, 4, 4, 4, 8, 8, 12};
        List<Pod> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            Pods b = Pods.pod(prefix + "-" + i).namespace(NS).cpu("1").memory("4Gi");
            if (r.nextInt(20) == 0) b.gpuMem(16).gpuCount(2);
            else {
                b.gpuMem(gib[r.nextInt(gib.length)]);
                if (r.nextInt(5) == 0) b.gpuCore(30);
            }
            Pod p = b.build();
            clean(p, profile);
            out.add(p);
        }
        return out;
    }

    private static void clean(Pod p, String profile) {
        p.getMetadata().setUid(null);
        p.setStatus(null);
        p.getSpec().setSchedulerName(profile);
    }

    /** {@code each} over {@code items} from the generator's threads; the first failure stops the run. */
    private <T> void parallel(List<T> items, Consumer<T> each) throws Exception {
        try (ExecutorService pool = Executors.newFixedThreadPool(o.threads())) {
            List<Future<?>> fs = new ArrayList<>(items.size());
            for (T item : items) fs.add(pool.submit(() -> each.accept(item)));
            for (Future<?> f : fs) f.get();
        }
    }

    private static String models(ScaleCluster sc) {
        Map<String, Integer> n = new TreeMap<>();
        for (var s : sc.nodes()) n.merge(s.model() + " " + s.mibPerGpu() + " MiB", 1, Integer::sum);
        return n.toString();
    }

    private static void jcmd(ManagedProcess p, String... cmd) throws Exception {
        List<String> c = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "jcmd").toString(), Long.toString(p.pid())));
        c.addAll(List.of(cmd));
        Process proc = new ProcessBuilder(c).redirectErrorStream(true).start();
        String out = new String(proc.getInputStream().readAllBytes());
        if (proc.waitFor() != 0) System.err.println("jcmd " + String.join(" ", cmd) + ": " + out.strip());
    }

    /** CPU seconds the JVM's JIT compiler threads have used (their /proc task stats: utime + stime); NaN where unreadable. */
    static double compileSeconds(ManagedProcess p) {
        double ticks = 0;
        try (var tasks = Files.list(Path.of("/proc", Long.toString(p.pid()), "task"))) {
            for (Path t : (Iterable<Path>) tasks::iterator) {
                String stat;
                try { stat = Files.readString(t.resolve("stat")); } catch (Exception gone) { continue; } // the thread ended
                int open = stat.indexOf('('), close = stat.lastIndexOf(')');
                String comm = stat.substring(open + 1, close);
                if (!comm.startsWith("C1 CompilerThre") && !comm.startsWith("C2 CompilerThre")) continue;
                String[] f = stat.substring(close + 2).split(" "); // from field 3 (state): utime is field 14, stime 15
                ticks += Long.parseLong(f[11]) + Long.parseLong(f[12]);
            }
        } catch (Exception e) {
            return Double.NaN;
        }
        return ticks / 100.0; // USER_HZ
    }

    private static String affinity() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"))) if (line.startsWith("Cpus_allowed_list:")) return "CPUs " + line.substring(18).strip();
        } catch (Exception e) {
            // not Linux
        }
        return "all CPUs";
    }

    private static String cpuModel() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/cpuinfo"))) if (line.startsWith("model name")) return line.substring(line.indexOf(':') + 1).strip();
        } catch (Exception e) {
            // not Linux
        }
        return System.getProperty("os.arch");
    }

    private static void say(String format, Object... args) {
        System.out.printf(Locale.ROOT, format + "%n", args);
        System.out.flush();
    }
}
