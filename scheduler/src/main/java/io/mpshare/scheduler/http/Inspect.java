package io.mpshare.scheduler.http;

import io.mpshare.core.ledger.Allocation;
import io.mpshare.core.ledger.Ledger;
import io.mpshare.core.ledger.NodeState;
import tools.jackson.core.JsonGenerator;

import java.io.OutputStream;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * The inspect API: who holds which GPU, as this replica's ledger has it. {@code GET inspect} lists every
 * node, {@code GET inspect/{node}} one node ({@code Error} when the node is unknown).
 * Shape: {@code {"nodes":[{"name","gpus":[{"index","uuid","model","healthy","totalMiB","allocatedMiB",
 * "allocatedCore","pods":[{"pod","uid","phase","mib","core"}]}]}],"Error":""}}.
 */
public final class Inspect {
    private final Ledger ledger;
    private final WireWriter writer = new WireWriter();

    public Inspect(Ledger ledger) { this.ledger = ledger; }

    public void write(OutputStream out, String onlyNode) {
        List<NodeState> nodes = new ArrayList<>();
        if (onlyNode == null) nodes.addAll(ledger.nodes());
        else {
            NodeState s = ledger.node(onlyNode);
            if (s == null) {
                writer.error(out, "node " + onlyNode + " is not known to mpshare (not labelled ack.node.gpu.schedule=mps, or no inventory yet)");
                return;
            }
            nodes.add(s);
        }
        nodes.sort(Comparator.comparing(NodeState::name));
        try (JsonGenerator g = writer.generator(out)) {
            g.writeStartObject();
            g.writeName("nodes");
            g.writeStartArray();
            for (NodeState s : nodes) node(g, s);
            g.writeEndArray();
            g.writeStringProperty("Error", "");
            g.writeEndObject();
        }
    }

    private static void node(JsonGenerator g, NodeState s) {
        g.writeStartObject();
        g.writeStringProperty("name", s.name());
        g.writeName("gpus");
        g.writeStartArray();
        List<Allocation> allocs = new ArrayList<>(s.pods().values());
        allocs.sort(Comparator.comparing(Allocation::pod));
        for (int i = 0; i < s.gpuCount(); i++) {
            var gpu = s.gpu(i);
            g.writeStartObject();
            g.writeNumberProperty("index", gpu.index());
            g.writeStringProperty("uuid", gpu.uuid());
            g.writeStringProperty("model", gpu.model());
            g.writeBooleanProperty("healthy", gpu.healthy());
            g.writeNumberProperty("totalMiB", gpu.totalMib());
            g.writeNumberProperty("allocatedMiB", s.allocatedMib(i));
            g.writeNumberProperty("allocatedCore", s.allocatedCore(i));
            g.writeName("pods");
            g.writeStartArray();
            for (Allocation a : allocs) {
                if (!a.gpuIndices().contains(gpu.index())) continue;
                g.writeStartObject();
                g.writeStringProperty("pod", a.pod().toString());
                g.writeStringProperty("uid", a.podUid());
                g.writeStringProperty("phase", a.phase().name());
                g.writeNumberProperty("mib", a.demand().chargeMib());
                g.writeNumberProperty("core", a.demand().chargeCore());
                g.writeEndObject();
            }
            g.writeEndArray();
            g.writeEndObject();
        }
        g.writeEndArray();
        g.writeEndObject();
    }
}
