package io.mpshare.inspect;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.mpshare.core.MemoryUnit;
import io.mpshare.core.Names;
import io.mpshare.core.codec.AllocationCodec;
import io.mpshare.core.codec.InventoryCodec;
import io.mpshare.core.codec.UsageCodec;
import io.mpshare.core.ledger.Allocation;
import io.mpshare.core.model.NodeInventory;
import io.mpshare.core.model.PodKey;
import io.mpshare.kube.KubePod;
import io.mpshare.kube.PodLists;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads the snapshot {@code inspect} reports on: nodes with a published inventory ({@code mpshare.io/gpus}) and the
 * pods bound to them that carry an allocation (ours or ACK gpushare's), with their last usage. Two LIST calls; no
 * informer, since the command prints once and exits.
 */
public final class ClusterReader {
    /** How many node names a "not found" lists. */
    static final int MAX_NAMED = 20;
    private final KubernetesClient client;
    private final MemoryUnit unit;

    public ClusterReader(KubernetesClient client, MemoryUnit unit) {
        this.client = client;
        this.unit = unit;
    }

    /** @param onlyNode a node name to report on alone, or null for every node */
    public GpuReport read(String onlyNode) {
        List<String> problems = new ArrayList<>();
        Map<String, NodeInventory> inventories = new HashMap<>();
        List<Node> nodes = onlyNode == null ? client.nodes().list().getItems() : single(client.nodes().withName(onlyNode).get(), onlyNode);
        for (Node n : nodes) {
            String name = n.getMetadata().getName();
            String text = annotations(n.getMetadata().getAnnotations()).get(Names.ANN_NODE_GPUS);
            if (text == null) continue;
            try {
                inventories.put(name, InventoryCodec.decode(name, text));
            } catch (IllegalArgumentException e) {
                problems.add("node " + name + ": " + Names.ANN_NODE_GPUS + " cannot be read: " + e.getMessage());
            }
        }
        if (onlyNode != null && inventories.isEmpty() && problems.isEmpty())
            problems.add("node " + onlyNode + " has published no GPU inventory (" + Names.ANN_NODE_GPUS + "): is the mpshare device plugin running there?");
        List<Allocation> allocations = new ArrayList<>();
        Map<PodKey, UsageCodec.PodUsage> usage = new HashMap<>();
        for (KubePod p : PodLists.all(client)) {
            String node = p.nodeName();
            if (node == null || !inventories.containsKey(node) || p.finished()) continue;
            switch (p.booking(inventories.get(node), unit)) {
                case AllocationCodec.Decoded.Found f -> allocations.add(f.allocation());
                case AllocationCodec.Decoded.Malformed m -> problems.add(m.reason());
                case AllocationCodec.Decoded.None none -> { continue; }
            }
            String u = p.annotations().get(Names.ANN_USAGE);
            if (u != null) {
                try {
                    usage.put(p.key(), UsageCodec.decode(u));
                } catch (IllegalArgumentException e) {
                    problems.add("pod " + p.key() + ": " + e.getMessage());
                }
            }
        }
        return GpuReport.of(new ArrayList<>(inventories.values()), allocations, usage, problems);
    }

    private List<Node> single(Node n, String name) {
        if (n == null) throw new IllegalArgumentException("node " + name + " not found; " + sharingNodes());
        return List.of(n);
    }

    /** The nodes that take part (labelled as the chart's DaemonSets select them), for a name that matched none. */
    private String sharingNodes() {
        String label = Names.NODE_LABEL_SCHEDULE + "=" + Names.NODE_LABEL_SCHEDULE_MPS;
        List<String> names = client.nodes().withLabel(Names.NODE_LABEL_SCHEDULE, Names.NODE_LABEL_SCHEDULE_MPS).list().getItems().stream()
                .map(n -> n.getMetadata().getName()).sorted().toList();
        if (names.isEmpty()) return "no node takes part in GPU sharing here (none is labelled " + label + ")";
        String shown = String.join(", ", names.subList(0, Math.min(names.size(), MAX_NAMED)));
        return "the nodes labelled " + label + ": " + shown + (names.size() > MAX_NAMED ? " and " + (names.size() - MAX_NAMED) + " more" : "");
    }

    private static Map<String, String> annotations(Map<String, String> a) { return a == null ? Map.of() : a; }
}
