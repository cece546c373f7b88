package io.mpshare.e2e.k8s;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.mpshare.testing.Pods;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.Executors;

/**
 * Burst benchmark (issue 12, bench/run-k8s-burst.sh): in one run, on one control plane and one kube-scheduler with
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
            double plain = rate(c, pods("plain", 0, 120), 120);
            Map<String, double[]> before = verbTimes(ext);
            double gpu = rate(c, gpuBurst(""), 120);
            Map<String, double[]> after = verbTimes(ext);
            System.out.printf("kube-scheduler alone, 120 pods without GPU: %.1f pods/s%n", plain);
            System.out.printf("through the extender, 120 GPU pods:        %.1f pods/s%n", gpu);
            System.out.printf("ratio: %.2f (target >= 0.5)%n", gpu / plain);
            for (var e : after.entrySet()) {
                double[] b = before.getOrDefault(e.getKey(), new double[2]);
                double n = e.getValue()[1] - b[1];
                if (n > 0) System.out.printf("extender %-10s %4.0f calls, mean %.2f ms as the server sees it (read to reply written)%n",
                        e.getKey(), n, 1000 * (e.getValue()[0] - b[0]) / n);
            }
        }
    }

    /** Per verb: total seconds and calls of mpshare_extender_request_duration_seconds, from the extender's /metrics. */
    static Map<String, double[]> verbTimes(Components.Extender ext) throws Exception {
        String text = java.net.http.HttpClient.newHttpClient().send(java.net.http.HttpRequest.newBuilder(java.net.URI.create(ext.url() + "/metrics")).build(),
                java.net.http.HttpResponse.BodyHandlers.ofString()).body();
        Map<String, double[]> out = new java.util.TreeMap<>();
        var m = java.util.regex.Pattern.compile("^mpshare_extender_request_duration_seconds_(sum|count)\\{verb=\"([a-z]+)\"\\} (\\S+)$",
                java.util.regex.Pattern.MULTILINE).matcher(text);
        while (m.find()) out.computeIfAbsent(m.group(2), k -> new double[2])[m.group(1).equals("sum") ? 0 : 1] = Double.parseDouble(m.group(3));
        return out;
    }

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

    /** Creates the pods from 8 threads and waits until {@code n} pods of theirs are bound; pods per second. */
    static double rate(KubernetesClient c, List<Pod> pods, int n) throws Exception {
        long t0 = System.nanoTime();
        try (var pool = Executors.newFixedThreadPool(8)) {
            for (Pod p : pods) pool.submit(() -> c.resource(p).create());
        }
        while (true) {
            long bound = c.pods().inNamespace("bench").list().getItems().stream()
                    .filter(p -> p.getSpec().getNodeName() != null && pods.stream().anyMatch(q -> q.getMetadata().getName().equals(p.getMetadata().getName())))
                    .count();
            if (bound >= n) break;
            ControlPlane.sleep(50);
        }
        double secs = (System.nanoTime() - t0) / 1e9;
        return n / secs;
    }
}
