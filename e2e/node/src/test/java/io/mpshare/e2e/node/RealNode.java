package io.mpshare.e2e.node;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.mpshare.core.Names;
import io.mpshare.testing.Waits;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * One real GPU node of the tier: kubelet on containerd ({@link NodeRuntime}) joined to the cluster as {@link #NAME},
 * {@code mpshare mps-control --colour blue} over the project's fake control binary, and
 * {@code mpshare device-plugin --fake-gpus 2} (two H200s: 140 devices of {@code aliyun.com/gpu-mem} each), as the
 * DaemonSets run them: host processes (hostPID, hostNetwork), the run folder shared. Each part can be stopped,
 * killed or restarted by a scenario. The fake daemon can be made to fail its starts ({@link #breakDaemonStarts}),
 * which keeps an outage open.
 */
final class RealNode implements AutoCloseable {
    static final String NAME = "mpshare-e2e-node";
    static final int GPUS = 2;
    static final int UNITS_PER_GPU = 140;

    private final Path dir;
    private final ClusterAccess cluster;
    private final Mpshare mpshare;
    private final NodeRuntime runtime;
    private final ApiProxy apiProxy;
    private Kubelet kubelet;
    private Daemon mpsControl;
    private Daemon devicePlugin;
    private String strategy = "device-specs";
    private List<String> extraPluginArgs = List.of();

    private RealNode(Path dir, ClusterAccess cluster, Mpshare mpshare, NodeRuntime runtime) throws IOException {
        this.dir = dir;
        this.cluster = cluster;
        this.mpshare = mpshare;
        this.runtime = runtime;
        this.apiProxy = new ApiProxy(cluster.kubelet().server());
    }

    static RealNode start(NodeTier tier, Path dir, ClusterAccess cluster) throws IOException, InterruptedException {
        Mpshare mpshare = new Mpshare(tier.repo(), dir.resolve("bin"));
        RealNode n = new RealNode(dir, cluster, mpshare, NodeRuntime.start(tier, dir.resolve("runtime")));
        try {
            n.writeFakeDaemon(tier.repo());
            FakeDriverTree.write(n.driverRoot(), GPUS);
            var viaProxy = new Kubelet.ApiAccess(n.apiProxy.url(), cluster.kubelet().caCert(), cluster.kubelet().clientCert(), cluster.kubelet().clientKey());
            n.kubelet = n.runtime.startKubelet(NAME, List.of(Names.NODE_LABEL_SCHEDULE + "=" + Names.NODE_LABEL_SCHEDULE_MPS), Optional.of(viaProxy));
            Waits.until(Duration.ofSeconds(60), n::nodeReady, () -> "node not Ready; kubelet:\n" + n.kubelet.daemon().tail(20));
            n.untaintNotReady();
            n.startMpsControl();
            Waits.until(Duration.ofSeconds(60), () -> Files.exists(n.readyMarker()), () -> "mps-control not ready:\n" + n.mpsControl.tail(20));
            n.startDevicePlugin();
            n.awaitCapacity();
            return n;
        } catch (IOException | RuntimeException | InterruptedException | AssertionError e) {
            n.close();
            throw e;
        }
    }

    /** The project's fake control binary, behind a wrapper that refuses to start while {@code <dir>/broken} exists. */
    private void writeFakeDaemon(Path repo) throws IOException {
        Path fake = repo.resolve("mps/src/test/resources/fake-nvidia-cuda-mps-control.sh");
        Path bin = dir.resolve("bin");
        Files.createDirectories(bin);
        Path wrapper = bin.resolve("nvidia-cuda-mps-control");
        Files.writeString(wrapper, """
                #!/bin/sh
                # e2e/node: the project's fake control binary; while %1$s exists the daemon (-f) fails to start.
                if [ "$1" = "-f" ] && [ -e "%1$s" ]; then echo "fake daemon: start refused (broken)"; exit 1; fi
                exec sh "%2$s" "$@"
                """.formatted(brokenFlag(), fake));
        Files.setPosixFilePermissions(wrapper, PosixFilePermissions.fromString("rwxr-xr-x"));
    }

    private void startMpsControl() throws IOException {
        mpsControl = mpshare.start("mps-control", List.of("mps-control", "--colour", Names.MPS_COLOUR_BLUE, "--run-dir", runDir().toString(),
                "--mps-control-binary", dir.resolve("bin/nvidia-cuda-mps-control").toString(), "--status-port", "0",
                "--health-interval-seconds", "1", "--force-quit"), Map.of(), dir.resolve("logs/mps-control.log"));
    }

    /** The device plugin with the strategy and extra flags it was last started with (device-specs, none at first). */
    void startDevicePlugin() throws IOException {
        startDevicePlugin(strategy, extraPluginArgs);
    }

    /**
     * The device plugin on the fake GPUs with a device-list strategy: device-specs (the tier's) and cdi find the driver's
     * files in {@link #driverRoot()}; cdi writes its spec to {@link #cdiSpecDir()}. {@code extra}: further flags (e.g.
     * the chart's {@code --fault-domain-default=tenant}), kept for later starts until changed.
     */
    void startDevicePlugin(String strategy, List<String> extra) throws IOException {
        this.strategy = strategy;
        this.extraPluginArgs = List.copyOf(extra);
        var args = new ArrayList<>(List.of("device-plugin", "--node-name", NAME, "--fake-gpus", GPUS + "x143771",
                "--run-dir", runDir().toString(), "--pod-resources-socket", kubelet.podResourcesSocket().toString(),
                "--metrics-port", Integer.toString(Kubelet.freePort()), "--device-list-strategy", strategy,
                "--driver-root", driverRoot().toString(), "--dev-root", driverRoot().toString(), "--cdi-spec-dir", cdiSpecDir().toString()));
        // the tier's pods are the seed's shape, served by the colour's node daemon (the agent's default is tenant),
        // unless the scenario gives its own kind
        if (extra.stream().noneMatch(a -> a.startsWith("--fault-domain-default"))) args.addAll(List.of("--fault-domain-default", "node"));
        args.addAll(extra);
        devicePlugin = mpshare.start("device-plugin", args, Map.of("KUBECONFIG", cluster.devicePluginKubeconfig().toString(), "NODE_NAME", NAME),
                dir.resolve("logs/device-plugin.log"));
    }

    /**
     * Waits until the node's allocatable shows every device. A plugin that exits meanwhile is started again, as
     * kubelet restarts a DaemonSet's crashed container (on a loaded 2-core machine its first API call can time out).
     */
    void awaitCapacity() throws InterruptedException {
        Waits.until(Duration.ofSeconds(120), () -> {
            if (!devicePlugin.alive()) {
                System.err.println("e2e/node: device plugin exited; starting it again, as kubelet would. Its log:\n" + devicePlugin.tail(5));
                try {
                    startDevicePlugin();
                } catch (IOException e) {
                    throw new IllegalStateException(e);
                }
            }
            return allocatable(Names.RESOURCE_GPU_MEM) == GPUS * UNITS_PER_GPU;
        }, () -> "node allocatable " + Names.RESOURCE_GPU_MEM + " = " + allocatable(Names.RESOURCE_GPU_MEM) + "; device plugin:\n" + devicePlugin.tail(20));
    }

    // --- what scenarios do to the node

    /** SIGTERM the device plugin and start it again (what a DaemonSet rollout does to its process). */
    void restartDevicePlugin() throws IOException, InterruptedException {
        restartDevicePlugin(strategy, extraPluginArgs);
    }

    /** As {@link #restartDevicePlugin()}, with another device-list strategy and extra flags. */
    void restartDevicePlugin(String strategy, List<String> extra) throws IOException, InterruptedException {
        devicePlugin.close();
        startDevicePlugin(strategy, extra);
    }

    /** {@link #restartDevicePlugin(String, List)}, then waits until kubelet has its registration and all devices Healthy. */
    void reregisterDevicePlugin(String strategy, List<String> extra) throws IOException, InterruptedException {
        KubeletLog log = new KubeletLog(kubelet.log());
        long mark = log.mark();
        restartDevicePlugin(strategy, extra);
        Waits.until(Duration.ofSeconds(90), () -> log.registrations(Names.RESOURCE_GPU_MEM, mark) > 0
                && log.lastHealthy(Names.RESOURCE_GPU_MEM, mark).orElse(0) == GPUS * UNITS_PER_GPU,
                () -> "plugin (" + strategy + " " + extra + ") not registered again:\n" + devicePlugin.tail(20));
    }

    /** Stops kubelet (containers keep running) without starting it again. */
    void stopKubelet() throws InterruptedException { kubelet.stop(); }

    void startKubelet() throws IOException { kubelet.start(); }

    /** Cuts kubelet off the API server (or reconnects it); kubelet reaches it only through {@link ApiProxy}. */
    void cutKubeletFromApi(boolean cut) { apiProxy.cut(cut); }

    /** While set, the fake daemon refuses to start, so the supervisor's restarts fail. */
    void breakDaemonStarts(boolean broken) throws IOException {
        if (broken) Files.writeString(brokenFlag(), "");
        else Files.deleteIfExists(brokenFlag());
    }

    /** SIGKILL the MPS control daemon (the fake's {@code -f} process), as a crash. Returns its PID. */
    long killDaemon() throws IOException {
        long pid = Long.parseLong(Files.readString(runDir().resolve("blue/pipe/control")).strip());
        ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
        return pid;
    }

    /** SIGSTOP / SIGCONT the supervisor ({@code mpshare mps-control}): hung, not dead. */
    void hangSupervisor(boolean hung) throws IOException, InterruptedException { mpsControl.signal(hung ? "STOP" : "CONT"); }

    // --- what scenarios read

    KubernetesClient api() { return cluster.admin(); }

    String schedulerName() { return cluster.schedulerName(); }

    Kubelet kubelet() { return kubelet; }

    Daemon devicePlugin() { return devicePlugin; }

    Daemon mpsControl() { return mpsControl; }

    Path runDir() { return dir.resolve("run"); }

    /** The fake driver tree ({@link FakeDriverTree}): the device plugin's driver root and dev root. */
    Path driverRoot() { return dir.resolve("driver"); }

    Path cdiSpecDir() { return dir.resolve("cdi"); }

    /** containerd's record of a container ({@code ctr containers info}): its OCI spec among the rest, as JSON. */
    String containerInfo(String containerId) throws IOException, InterruptedException {
        return runtime.containerd().ctr("containers", "info", containerId.replaceFirst("^containerd://", ""));
    }

    Path readyMarker() { return runDir().resolve("blue/ready"); }

    /** The host PID of a running container's init process ({@code ctr tasks ls}), as the supervisor sees it (hostPID). */
    long containerPid(String containerId) throws IOException, InterruptedException {
        String id = containerId.replaceFirst("^containerd://", "");
        for (String line : runtime.containerd().ctr("tasks", "ls").split("\n")) {
            String[] f = line.trim().split("\\s+");
            if (f.length >= 2 && f[0].equals(id)) return Long.parseLong(f[1]);
        }
        throw new IllegalStateException("containerd runs no task for container " + id);
    }

    private Path brokenFlag() { return dir.resolve("bin/broken"); }

    /** A host folder test pods write into (hostPath), readable here. */
    Path outDir() throws IOException { return Files.createDirectories(dir.resolve("out")); }

    boolean nodeReady() {
        Node n = api().nodes().withName(NAME).get();
        return n != null && n.getStatus() != null && n.getStatus().getConditions().stream()
                .anyMatch(c -> "Ready".equals(c.getType()) && "True".equals(c.getStatus()));
    }

    /**
     * kubelet registers its Node with {@code node.kubernetes.io/not-ready:NoSchedule}; the node lifecycle controller
     * removes it once Ready, but the control-plane tier runs without that controller (it would evict its kubelet-less
     * nodes), so the tier removes it, as that controller would.
     */
    private void untaintNotReady() {
        api().nodes().withName(NAME).edit(n -> {
            if (n.getSpec().getTaints() != null) n.getSpec().getTaints().removeIf(t -> "node.kubernetes.io/not-ready".equals(t.getKey()));
            return n;
        });
    }

    long allocatable(String resource) {
        Node n = api().nodes().withName(NAME).get();
        if (n == null || n.getStatus() == null || n.getStatus().getAllocatable() == null) return -1;
        Quantity q = n.getStatus().getAllocatable().get(resource);
        return q == null ? -1 : q.getNumericalAmount().longValue();
    }

    @Override public void close() throws IOException {
        var steps = new NodeRuntime.Steps();
        if (devicePlugin != null) steps.run("stop the device plugin", devicePlugin::close);
        if (mpsControl != null) steps.run("stop mps-control", () -> {
            if (mpsControl.alive()) mpsControl.signal("CONT");
            mpsControl.close();
        });
        steps.run("close the node runtime", runtime::close);
        steps.run("close the API proxy", apiProxy::close);
        steps.run("delete the Node", () -> api().nodes().withName(NAME).delete());
        steps.rethrow();
    }
}
