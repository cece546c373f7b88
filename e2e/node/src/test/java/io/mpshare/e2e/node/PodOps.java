package io.mpshare.e2e.node;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.mpshare.core.Names;
import io.mpshare.deviceplugin.kubelet.PodResourcesClient;
import io.mpshare.deviceplugin.kubelet.UnixSockets;
import io.mpshare.testing.Waits;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;

/** Creating the tier's pods, waiting on them, and reading what kubelet recorded for them (pod-resources). */
final class PodOps {
    private final RealNode node;
    private final KubernetesClient api;
    private final String namespace;

    PodOps(RealNode node) { this(node, "default"); }

    /** The pods of {@code namespace}. */
    PodOps(RealNode node, String namespace) {
        this.node = node;
        this.api = node.api();
        this.namespace = namespace;
    }

    Pod create(Pod p) { return api.pods().inNamespace(namespace).resource(p).create(); }

    Pod reporter(String name, int gib) throws IOException {
        return create(new PodBuilder(TestPods.reporter(name, gib, node.schedulerName(), node.outDir())).editMetadata().withNamespace(namespace).endMetadata().build());
    }

    Pod get(String name) { return api.pods().inNamespace(namespace).withName(name).get(); }

    boolean running(String name) {
        Pod p = get(name);
        return p != null && "Running".equals(p.getStatus().getPhase());
    }

    boolean bound(String name) {
        Pod p = get(name);
        return p != null && p.getSpec().getNodeName() != null;
    }

    Duration awaitRunning(String name, Duration limit) throws InterruptedException {
        return Waits.until(limit, () -> running(name), () -> describe(name));
    }

    /** Deletes every pod of the namespace at once and waits until they are gone. */
    void deleteAll() throws InterruptedException {
        api.pods().inNamespace(namespace).withGracePeriod(0).delete();
        Waits.until(Duration.ofSeconds(60), () -> api.pods().inNamespace(namespace).list().getItems().isEmpty(),
                () -> "pods left: " + api.pods().inNamespace(namespace).list().getItems().stream().map(p -> p.getMetadata().getName()).toList());
    }

    /**
     * kubelet frees a deleted pod's devices only at its next Allocate (and, just after a restart, not before its pod
     * sources are synced), so allocations of pods deleted before a kubelet restart come back from its checkpoint and
     * refuse the first pods after it ("requested number of devices unavailable"). One small pod run to the end makes
     * kubelet drop them before a scenario restarts it.
     */
    void settleKubeletAllocations() throws IOException, InterruptedException {
        awaitAllHealthy();
        reporter("settle", 1);
        awaitRunning("settle", Duration.ofSeconds(60));
        deleteAll();
    }

    /**
     * Until kubelet's last device update says every gpu-mem device is Healthy: a scenario before this one may have left
     * the plugin re-registering (the old endpoint's stream ending after the new one registered), and kubelet refuses a
     * pod it admits meanwhile ("no healthy devices present") before the plugin is asked.
     */
    void awaitAllHealthy() throws InterruptedException {
        KubeletLog log = new KubeletLog(node.kubelet().log());
        Waits.until(Duration.ofSeconds(90), () -> log.lastHealthy(Names.RESOURCE_GPU_MEM, 0).orElse(-1) == RealNode.GPUS * RealNode.UNITS_PER_GPU,
                () -> "devices not all Healthy in kubelet's last update; plugin:\n" + node.devicePlugin().tail(10));
    }

    /** pod name → the GPU UUIDs of the gpu-mem device IDs kubelet recorded for its containers (pod-resources List). */
    Map<String, String> recordedGpus() {
        var group = UnixSockets.newGroup(1);
        try (var c = new PodResourcesClient(node.kubelet().podResourcesSocket(), group)) {
            Map<String, java.util.Set<String>> m = new TreeMap<>();
            for (var h : c.list(Names.RESOURCE_GPU_MEM))
                for (String id : h.deviceIds()) m.computeIfAbsent(h.pod().name(), k -> new java.util.TreeSet<>()).add(TestPods.gpuOfDevice(id));
            return m.entrySet().stream().collect(Collectors.toMap(Map.Entry::getKey, e -> String.join(",", e.getValue()), (a, b) -> a, TreeMap::new));
        } finally {
            group.shutdownGracefully();
        }
    }

    String describe(String name) {
        Pod p = get(name);
        if (p == null) return "pod " + name + " does not exist";
        return "pod " + name + " phase " + p.getStatus().getPhase() + " node " + p.getSpec().getNodeName() + " reason " + p.getStatus().getReason()
                + " message " + p.getStatus().getMessage() + " conditions " + p.getStatus().getConditions().stream()
                .map(c -> c.getType() + "=" + c.getStatus() + (c.getMessage() == null ? "" : "(" + c.getMessage() + ")")).toList();
    }

    static List<String> names(String prefix, int n) {
        return java.util.stream.IntStream.range(0, n).mapToObj(i -> prefix + "-" + i).toList();
    }
}
