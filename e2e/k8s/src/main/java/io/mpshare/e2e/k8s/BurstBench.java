package io.mpshare.e2e.k8s;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import io.mpshare.testing.Pods;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Burst benchmark (bench/run-k8s-burst.sh): in one run, on one control plane and one kube-scheduler with
 * the chart's configuration, the rate at which 120 pods that ask no GPU bind (kube-scheduler alone: the extender's
 * managedResources leave them out) and the rate of the 120-pod GPU burst through the extender (BurstIT's mix on
 * 10 x 8 H200). Rate = pods / (first create to last bound). Prints both and their ratio.
 */
public final class BurstBench {
    public static void main(String[] args) throws Exception {
        Path root = Cluster.findRepoRoot(Path.of(""));
        Binaries bin = switch (Binaries.locate(System.getenv(), root)) {
            case Binaries.Found f -> f.binaries();
            case Binaries.Missing m -> { System.err.println("burst bench: " + m.why()); System.exit(2); yield null; }
        };
        Path target = root.resolve("e2e/k8s/target/bench");
        try (Cluster cluster = Cluster.start(bin, root, target, Map.of())) {
            KubernetesClient c = cluster.client();
            cluster.controlPlane().createNamespace("bench", Map.of());
            GpuNodes.createMany(c, "bench", 10, 8, Map.of("e2e.mpshare.io/group", "bench"));
            var ext = cluster.components().extender("bench-extender", List.of("--scheduler-name=bench-sched"), target.resolve("logs"));
            cluster.components().scheduler("bench-scheduler", Components.SchedulerSettings.single("bench-sched", ext.port()), target.resolve("logs"));
            // a running extender has served many requests: warm both paths (JIT) with a burst each, then measure
            warm(c, pods("warm-plain", 0, 120));
            warm(c, gpuBurst("warm-"));
            var cpu0 = cpuSeconds(cluster.controlPlane());
            double plain = rate(c, pods("plain", 0, 120), 120);
            var cpu1 = cpuSeconds(cluster.controlPlane());
            Map<String, double[]> before = verbTimes(cluster, ext);
            double gpu = rate(c, gpuBurst(""), 120);
            Map<String, double[]> after = verbTimes(cluster, ext);
            var cpu2 = cpuSeconds(cluster.controlPlane());
            System.out.printf("kube-scheduler alone, 120 pods without GPU: %.1f pods/s%n", plain);
            System.out.printf("through the extender, 120 GPU pods:        %.1f pods/s%n", gpu);
            System.out.printf("ratio: %.2f (target >= 0.5)%n", gpu / plain);
            System.out.println("CPU seconds per process during each measured burst (no GPU | GPU), this JVM (the pods' creator) as bench:");
            for (var e : cpu2.entrySet())
                System.out.printf("  %-22s %6.2f | %6.2f%n", e.getKey(), cpu1.getOrDefault(e.getKey(), 0.0) - cpu0.getOrDefault(e.getKey(), 0.0),
                        e.getValue() - cpu1.getOrDefault(e.getKey(), 0.0));
            for (var e : after.entrySet()) {
                double[] b = before.getOrDefault(e.getKey(), new double[2]);
                double n = e.getValue()[1] - b[1];
                if (n > 0) System.out.printf("extender %-10s %4.0f calls, mean %.2f ms as the server sees it (read to reply written)%n",
                        e.getKey(), n, 1000 * (e.getValue()[0] - b[0]) / n);
            }
        }
    }

    /** Per verb: total seconds and calls of mpshare_extender_request_duration_seconds, from the extender's /metrics. */
    static Map<String, double[]> verbTimes(Cluster cluster, Components.Extender ext) {
        Metrics m = cluster.components().metrics(ext.url() + "/metrics");
        Map<String, double[]> out = new TreeMap<>();
        for (String verb : List.of("filter", "prioritize", "bind", "preempt")) {
            String label = "verb=\"" + verb + "\"";
            double n = m.sum("mpshare_extender_request_duration_seconds_count", label);
            if (n > 0) out.put(verb, new double[]{m.sum("mpshare_extender_request_duration_seconds_sum", label), n});
        }
        return out;
    }

    /** CPU seconds (user + system) each child process and this JVM (as bench) have used so far. */
    static Map<String, Double> cpuSeconds(ControlPlane cp) { return ProcessStats.cpuSeconds(cp, "bench"); }

    static List<Pod> pods(String prefix, long gib, int n) {
        List<Pod> out = new ArrayList<>();
        for (int i = 0; i < n; i++) out.add(pod(prefix + "-" + i, gib));
        return out;
    }

    static List<Pod> gpuBurst(String prefix) {
        List<Pod> out = new ArrayList<>(pods(prefix + "big", 90, 40));
        out.addAll(pods(prefix + "small", 45, 80));
        Collections.shuffle(out, new Random(7));
        return out;
    }

    static Pod pod(String name, long gib) {
        Pod p = (gib > 0 ? Pods.pod(name).gpuMem(gib) : Pods.pod(name)).namespace("bench").build();
        p.getSpec().setSchedulerName("bench-sched");
        p.getSpec().setNodeSelector(Map.of("e2e.mpshare.io/group", "bench"));
        return p;
    }

    /** A burst whose rate is not counted; its pods are deleted and gone (their room released) before it returns. */
    static void warm(KubernetesClient c, List<Pod> pods) throws Exception {
        double r = rate(c, pods, pods.size());
        System.out.printf("warm-up burst (not counted): %.1f pods/s%n", r);
        c.pods().inNamespace("bench").withGracePeriod(0).delete();
        while (!c.pods().inNamespace("bench").list().getItems().isEmpty()) ControlPlane.sleep(100);
        ControlPlane.sleep(2000); // the extender's informer sees the deletions
    }

    /**
     * Creates the pods from 8 threads and waits until {@code n} pods of theirs are bound; pods per second. Binds are
     * seen through a watch opened before the first create (the time of the event that makes {@code n}); a list once a
     * second is only the safety net for a dropped watch. Polling with lists every 50 ms, as before, loaded the API server
     * the bursts share with 20 lists of every pod a second, so the longer burst paid more for being observed.
     */
    static double rate(KubernetesClient c, List<Pod> pods, int n) throws Exception {
        Set<String> ours = new HashSet<>();
        for (Pod p : pods) ours.add(p.getMetadata().getName());
        Set<String> bound = ConcurrentHashMap.newKeySet();
        var last = new AtomicLong();
        var done = new CountDownLatch(1);
        var watcher = new Watcher<Pod>() {
            @Override public void eventReceived(Action action, Pod p) {
                if (p.getSpec().getNodeName() == null || !ours.contains(p.getMetadata().getName())) return;
                if (bound.add(p.getMetadata().getName()) && bound.size() >= n && last.compareAndSet(0, System.nanoTime())) done.countDown();
            }
            @Override public void onClose(WatcherException e) { }
        };
        try (var watch = c.pods().inNamespace("bench").watch(watcher)) {
            long t0 = System.nanoTime();
            try (var pool = Executors.newFixedThreadPool(8)) {
                for (Pod p : pods) pool.submit(() -> c.resource(p).create());
            }
            while (!done.await(1, TimeUnit.SECONDS)) {
                long listed = c.pods().inNamespace("bench").list().getItems().stream()
                        .filter(p -> p.getSpec().getNodeName() != null && ours.contains(p.getMetadata().getName())).count();
                if (listed >= n && last.compareAndSet(0, System.nanoTime())) break;
            }
            return n / ((last.get() - t0) / 1e9);
        }
    }
}
