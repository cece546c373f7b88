package io.mpshare.testing;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.mpshare.core.Names;
import io.mpshare.core.codec.InventoryCodec;
import io.mpshare.core.model.Gpu;
import io.mpshare.core.model.NodeInventory;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Builds fabric8 {@link Node}s for tests: {@code Nodes.node("n1").gpus(8, 143771).build()} is a node labelled
 * {@code ack.node.gpu.schedule=mps} publishing eight 143771 MiB GPUs in {@code mpshare.io/gpus}.
 */
public final class Nodes {
    private final String name;
    private final List<Gpu> gpus = new ArrayList<>();
    private boolean labelled = true;
    private boolean inventory = true;
    private String rawInventory;
    private final Map<String, String> annotations = new LinkedHashMap<>();
    private final Map<String, String> allocatable = new LinkedHashMap<>();

    private Nodes(String name) { this.name = name; }

    public static Nodes node(String name) { return new Nodes(name); }

    /** Adds {@code n} healthy GPUs of {@code mib} each, with the next free indices. */
    public Nodes gpus(int n, long mib) { return gpus(n, mib, "NVIDIA H200"); }

    /** Adds {@code n} healthy GPUs of model {@code model} (as NVML names it) and {@code mib} each. */
    public Nodes gpus(int n, long mib, String model) {
        for (int i = 0; i < n; i++) gpu(mib, true, model);
        return this;
    }

    public Nodes gpu(long mib, boolean healthy) { return gpu(mib, healthy, "NVIDIA H200"); }

    private Nodes gpu(long mib, boolean healthy, String model) {
        int idx = gpus.size();
        gpus.add(new Gpu(idx, "GPU-" + name + "-" + idx, model, mib, healthy));
        return this;
    }

    /** Without the {@code ack.node.gpu.schedule=mps} label. */
    public Nodes unlabelled() { labelled = false; return this; }
    /** Labelled, but its device plugin published no inventory. */
    public Nodes noInventory() { inventory = false; return this; }
    /** A verbatim {@code mpshare.io/gpus} value (to test bad ones). */
    public Nodes rawInventory(String text) { rawInventory = text; return this; }
    public Nodes annotation(String k, String v) { annotations.put(k, v); return this; }
    /** {@code status.allocatable} cpu and memory, as Kubernetes quantities (null leaves one out). */
    public Nodes allocatable(String cpu, String memory) {
        if (cpu != null) allocatable.put(Names.RESOURCE_CPU, cpu);
        if (memory != null) allocatable.put(Names.RESOURCE_MEMORY, memory);
        return this;
    }

    public NodeInventory inventory() { return new NodeInventory(name, gpus); }

    public Node build() {
        var ann = new LinkedHashMap<>(annotations);
        if (rawInventory != null) ann.put(Names.ANN_NODE_GPUS, rawInventory);
        else if (inventory) ann.put(Names.ANN_NODE_GPUS, InventoryCodec.encode(inventory()));
        var labels = new LinkedHashMap<String, String>();
        labels.put("kubernetes.io/hostname", name);
        if (labelled) labels.put(Names.NODE_LABEL_SCHEDULE, Names.NODE_LABEL_SCHEDULE_MPS);
        return new NodeBuilder().withNewMetadata().withName(name).withLabels(labels).withAnnotations(ann).endMetadata()
                .withNewStatus().withAllocatable(allocatable.isEmpty() ? null : quantities(allocatable)).endStatus().build();
    }

    private static Map<String, Quantity> quantities(Map<String, String> m) {
        var out = new LinkedHashMap<String, Quantity>();
        m.forEach((k, v) -> out.put(k, new Quantity(v)));
        return out;
    }
}
