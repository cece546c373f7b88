package io.mpshare.deviceplugin.cluster;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.mpshare.core.Names;
import io.mpshare.core.codec.DomainsCodec;
import io.mpshare.core.codec.DomainsCodec.NodeDomains;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.logging.Logger;

/**
 * Publishes this node's MPS fault domains on its Node as {@link Names#ANN_NODE_DOMAINS} ({@link DomainsCodec}), for
 * {@code mpshare inspect} and the extender: one JSON merge patch when what it says changes (its time aside), on the given
 * executor, the latest value only. {@link #read} gives back what an earlier run published (its suspects are kept).
 */
public final class DomainsPublisher {
    private static final Logger LOG = Logger.getLogger(DomainsPublisher.class.getName());

    private final KubernetesClient client;
    private final String node;
    private final Executor executor;
    private final AtomicReference<NodeDomains> latest = new AtomicReference<>();
    private final AtomicBoolean queued = new AtomicBoolean();
    /** What the Node carries (its time aside): nothing at first, so a node without domains or suspects is never patched. */
    private volatile String written = withoutTime(new NodeDomains(Instant.EPOCH, List.of(), List.of()));

    public DomainsPublisher(KubernetesClient client, String node, Executor executor) {
        this.client = client;
        this.node = node;
        this.executor = executor;
    }

    /** Publishes {@code d} unless it says what was last written. */
    public void publish(NodeDomains d) {
        latest.set(d);
        if (!queued.compareAndSet(false, true)) return;
        try {
            executor.execute(this::write);
        } catch (RejectedExecutionException e) {
            queued.set(false);
        }
    }

    private void write() {
        queued.set(false);
        NodeDomains d = latest.get();
        String key = withoutTime(d);
        if (key.equals(written)) return;
        String json = client.getKubernetesSerialization().asJson(Map.of("metadata", Map.of("annotations", Map.of(Names.ANN_NODE_DOMAINS, DomainsCodec.encode(d)))));
        try {
            client.nodes().withName(node).patch(PatchContext.of(PatchType.JSON_MERGE), json);
            written = key;
        } catch (RuntimeException e) {
            LOG.warning("publishing the MPS domains of node " + node + " failed (again at the next change): " + e.getMessage());
        }
    }

    private static String withoutTime(NodeDomains d) { return DomainsCodec.encode(new NodeDomains(Instant.EPOCH, d.domains(), d.suspects())); }

    /** What the Node carries now (an earlier run's), or empty when nothing readable. */
    public Optional<NodeDomains> read() {
        try {
            Node n = client.nodes().withName(node).get();
            String text = n == null || n.getMetadata().getAnnotations() == null ? null : n.getMetadata().getAnnotations().get(Names.ANN_NODE_DOMAINS);
            if (text == null) return Optional.empty();
            NodeDomains d = DomainsCodec.decode(text);
            written = withoutTime(d);
            return Optional.of(d);
        } catch (RuntimeException e) {
            LOG.info("the MPS domains an earlier run published on node " + node + " could not be read (" + e.getMessage() + "): no suspects kept");
            return Optional.empty();
        }
    }
}
