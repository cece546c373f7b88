package io.mpshare.e2e.k8s;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.mpshare.core.Names;
import io.mpshare.core.codec.InventoryCodec;
import io.mpshare.core.model.Gpu;
import io.mpshare.testing.Nodes;

import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;

/**
 * Fake GPU nodes on a real API server, as a node with mpshare's device plugin looks: labelled
 * {@code ack.node.gpu.schedule=mps}, its inventory in {@code mpshare.io/gpus} (what {@code InventoryPublisher} writes),
 * and {@code aliyun.com/gpu-mem} / {@code aliyun.com/gpu-core.percentage} capacity as kubelet reports the plugin's
 * devices (GiB units: {@code floor(MiB / 1024)} per GPU; 100 per GPU). No kubelet runs, so status is set through
 * {@code nodes/status}, the Ready condition set and the {@code node.kubernetes.io/not-ready} taint removed.
 */
public final class GpuNodes {
    public static final long H200_MIB = 143_771;
    private GpuNodes() {}

    /** A node spec: name, GPU count, size and model (as NVML names it), extra labels (e.g. a test group label for nodeSelectors). */
    public record Spec(String name, int gpus, long mibPerGpu, String model, Map<String, String> labels) {
        public Spec {
            if (gpus < 0) throw new IllegalArgumentException("gpus must be >= 0, got " + gpus);
            labels = Map.copyOf(labels);
        }
        public static Spec h200(String name, int gpus, Map<String, String> labels) { return new Spec(name, gpus, H200_MIB, "NVIDIA H200", labels); }
    }

    /** Creates the node, publishes its inventory and capacity, and makes it schedulable. */
    public static Node create(KubernetesClient c, Spec spec) {
        Nodes b = Nodes.node(spec.name());
        if (spec.gpus() > 0) b.gpus(spec.gpus(), spec.mibPerGpu(), spec.model()); else b.noInventory();
        Node n = b.build();
        n.getMetadata().getLabels().putAll(spec.labels());
        if (spec.gpus() > 0) n.getMetadata().getAnnotations().put(Names.ANN_NODE_GPUS_TIME, Instant.now().toString());
        c.nodes().resource(n).create();
        Map<String, String> cap = new LinkedHashMap<>();
        cap.put("cpu", "64");
        cap.put("memory", "512Gi");
        cap.put("pods", "250");
        long gib = b.inventory().gpus().stream().mapToLong(g -> g.totalMib() / 1024).sum();
        cap.put(Names.RESOURCE_GPU_MEM, Long.toString(gib));
        cap.put(Names.RESOURCE_GPU_CORE, Long.toString(100L * spec.gpus()));
        String now = Instant.now().toString();
        var status = Map.of("status", Map.of("capacity", cap, "allocatable", cap, "conditions", List.of(Map.of(
                "type", "Ready", "status", "True", "reason", "KubeletReady", "message", "fake node (no kubelet)",
                "lastHeartbeatTime", now, "lastTransitionTime", now))));
        var json = c.getKubernetesSerialization();
        // merge patches: the API server's own controllers touch a new node too, so no read-modify-write
        c.nodes().withName(spec.name()).subresource("status").patch(PatchContext.of(PatchType.JSON_MERGE), json.asJson(status));
        return c.nodes().withName(spec.name()).patch(PatchContext.of(PatchType.JSON_MERGE), "{\"spec\":{\"taints\":null}}");
    }

    /** Creates {@code count} H200 nodes {@code prefix-0..} with {@code gpus} GPUs each and {@code labels}. */
    public static List<Node> createMany(KubernetesClient c, String prefix, int count, int gpus, Map<String, String> labels) {
        return IntStream.range(0, count).mapToObj(i -> create(c, Spec.h200(prefix + "-" + i, gpus, labels))).toList();
    }

    /** The inventory of a node as the extender reads it. */
    public static List<Gpu> inventory(Node n) {
        return InventoryCodec.decode(n.getMetadata().getName(),
                n.getMetadata().getAnnotations().get(Names.ANN_NODE_GPUS)).gpus();
    }
}
