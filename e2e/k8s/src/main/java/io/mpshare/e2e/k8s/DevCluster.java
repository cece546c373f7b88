package io.mpshare.e2e.k8s;

import io.mpshare.core.Names;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * {@code bin/dev-cluster}'s foreground part: starts the same control plane as the tests (etcd, kube-apiserver,
 * kube-controller-manager, the chart's RBAC), kube-scheduler with the chart's extender configuration, the extender,
 * and N fake GPU nodes (with a {@link PodFinisher}: no kubelet runs there); writes {@code DIR/kubeconfig} (admin),
 * {@code DIR/pids} and {@code DIR/ready}; then runs
 * until SIGTERM, when its shutdown hook stops every process. The script puts it in the background and does
 * {@code down}/{@code status} from the pid files.
 *
 * <pre>DevCluster DIR [--nodes N] [--gpus G] [--api-port P] [--extender-port P]</pre>
 * <p>The script first runs {@link DevClusterCheck} (options, binaries) from source, before it builds.
 */
public final class DevCluster {
    public static void main(String[] args) throws Exception {
        DevClusterOptions o;
        try {
            o = DevClusterOptions.parse(List.of(args));
        } catch (IllegalArgumentException e) {
            System.err.println("dev-cluster: " + e.getMessage());
            System.exit(2);
            return;
        }
        Path root = Cluster.findRepoRoot(Path.of(""));
        Files.createDirectories(o.dir());
        Files.deleteIfExists(o.dir().resolve("ready"));
        deleteTree(o.dir().resolve("run")); // each up is a fresh cluster: new certificates, empty etcd
        String busy = busyPort(o);
        if (busy != null) fail(o, busy);
        Binaries bin = switch (Binaries.locate(System.getenv(), root)) {
            case Binaries.Found f -> f.binaries();
            case Binaries.Missing m -> { fail(o, m.why()); yield null; }
        };
        Cluster cluster;
        PodFinisher finisher = null;
        try {
            cluster = Cluster.start(bin, root, o.dir().resolve("run"), o.dir().resolve("logs"), o.apiPort(), Map.of());
        } catch (RuntimeException e) {
            fail(o, e.getMessage().lines().findFirst().orElse("start failed") + " (logs in " + o.dir().resolve("logs") + ")");
            return;
        }
        try {
            Path logs = o.dir().resolve("logs");
            var nodes = GpuNodes.createMany(cluster.client(), "gpu-node", o.nodes(), o.gpus(), Map.of());
            // no kubelet on them: deleted pods are finished as kubelet would, else they stay Terminating and keep their GPU memory
            finisher = PodFinisher.start(cluster.client(), nodes.stream().map(n -> n.getMetadata().getName()).collect(Collectors.toSet()));
            int port = o.extenderPort() == 0 ? ControlPlane.freePort() : o.extenderPort();
            var ext = cluster.components().extender("extender", port, List.of(), logs);
            cluster.components().scheduler("kube-scheduler", Components.SchedulerSettings.single(Names.SCHEDULER_NAME, ext.port()), logs);
            cluster.webhooks().start("webhook", null, Names.SCHEDULER_NAME, logs);
            Files.copy(cluster.controlPlane().kubeconfigFor("dev-admin", List.of("system:masters")), o.dir().resolve("kubeconfig"),
                    java.nio.file.StandardCopyOption.REPLACE_EXISTING);
            writePids(o.dir(), cluster.controlPlane());
            Files.writeString(o.dir().resolve("ready"), cluster.controlPlane().server() + "\n");
        } catch (RuntimeException e) {
            cluster.close();
            fail(o, e.getMessage().lines().findFirst().orElse("start failed") + " (logs in " + o.dir().resolve("logs") + ")");
        }
        // helm-java's native (Go) library takes over SIGTERM once loaded, so shutdown hooks cannot be relied on:
        // `bin/dev-cluster down` asks by creating DIR/stop, then SIGKILLs whatever is left.
        Path stopFile = o.dir().resolve("stop");
        Files.deleteIfExists(stopFile);
        Runtime.getRuntime().addShutdownHook(new Thread(cluster::close));
        while (!Files.exists(stopFile)) Thread.sleep(250);
        System.err.println("dev-cluster: stopping");
        if (finisher != null) finisher.close();
        cluster.close();
        Files.deleteIfExists(stopFile);
        System.err.println("dev-cluster: stopped");
        System.exit(0);
    }

    private static String busyPort(DevClusterOptions o) {
        for (int p : List.of(o.apiPort(), o.extenderPort()))
            if (p != 0 && ControlPlane.portOpen(p))
                return "port " + p + " is in use (another dev-cluster? bin/dev-cluster status); choose others with --api-port/--extender-port";
        return null;
    }

    private static void writePids(Path dir, ControlPlane cp) throws IOException {
        List<String> lines = new ArrayList<>();
        lines.add("dev-cluster " + ProcessHandle.current().pid());
        for (ManagedProcess p : cp.processes()) lines.add(p.name() + " " + p.pid());
        Files.write(dir.resolve("pids"), lines);
    }

    private static void deleteTree(Path p) throws IOException {
        if (!Files.exists(p)) return;
        try (var walk = Files.walk(p)) {
            for (Path f : walk.sorted(java.util.Comparator.reverseOrder()).toList()) Files.delete(f);
        }
    }

    private static void fail(DevClusterOptions o, String why) {
        try {
            Files.writeString(o.dir().resolve("failed"), why + "\n");
        } catch (IOException ignored) {
            // the message still goes to stderr
        }
        System.err.println("dev-cluster: " + why);
        System.exit(1);
    }
}
