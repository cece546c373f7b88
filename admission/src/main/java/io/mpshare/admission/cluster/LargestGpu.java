package io.mpshare.admission.cluster;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.mpshare.core.Names;
import io.mpshare.core.codec.InventoryCodec;
import io.mpshare.core.model.Gpu;

import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import java.util.logging.Logger;

/**
 * The largest GPU in the cluster, kept current by a node informer (this is its event handler). Nodes without an
 * inventory, or with one that cannot be read, do not count. Empty until some node has published one: the size rule
 * is then skipped rather than rejecting everything.
 */
public final class LargestGpu implements ResourceEventHandler<Node>, Supplier<OptionalLong> {
    private static final Logger LOG = Logger.getLogger(LargestGpu.class.getName());
    private final Map<String, Long> perNode = new ConcurrentHashMap<>();

    @Override public OptionalLong get() {
        return perNode.values().stream().mapToLong(Long::longValue).max();
    }

    @Override public void onAdd(Node node) { update(node); }

    @Override public void onUpdate(Node old, Node node) { update(node); }

    @Override public void onDelete(Node node, boolean unknownFinalState) { perNode.remove(node.getMetadata().getName()); }

    void update(Node node) {
        String name = node.getMetadata().getName();
        String text = node.getMetadata().getAnnotations() == null ? null : node.getMetadata().getAnnotations().get(Names.ANN_NODE_GPUS);
        if (text == null || text.isBlank()) { perNode.remove(name); return; }
        try {
            long max = InventoryCodec.decode(name, text).gpus().stream().mapToLong(Gpu::totalMib).max().orElse(0);
            if (max > 0) perNode.put(name, max); else perNode.remove(name);
        } catch (IllegalArgumentException e) {
            LOG.warning("ignoring the GPU inventory of node " + name + ": " + e.getMessage());
            perNode.remove(name);
        }
    }

    /** A fixed size (the {@code --largest-gpu-mib} flag) instead of an informer. */
    public static Supplier<OptionalLong> fixed(long mib) {
        OptionalLong v = mib > 0 ? OptionalLong.of(mib) : OptionalLong.empty();
        return () -> v;
    }
}
