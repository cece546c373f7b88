package io.mpshare.deviceplugin.cluster;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.mpshare.core.Names;

import java.time.Duration;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * This node's object, from an informer on the one Node: tells the MPS generation (colour) that receives new clients,
 * from {@link Names#ANN_NODE_MPS_ACTIVE} (default {@link Names#MPS_COLOUR_DEFAULT}; {@code mpshare upgrade-node} flips it).
 */
public final class NodeView implements AutoCloseable {
    private static final Pattern COLOUR = Pattern.compile("[a-z0-9][a-z0-9-]{0,30}");

    private final KubernetesClient client;
    private final String node;
    private SharedIndexInformer<Node> informer;

    public NodeView(KubernetesClient client, String node) {
        this.client = client;
        this.node = node;
    }

    public NodeView start(Duration resync) {
        informer = client.nodes().withField("metadata.name", node).inform(null, resync.toMillis());
        return this;
    }

    public String activeColour() {
        Node n = informer == null ? null : informer.getStore().getByKey(node);
        Map<String, String> ann = n == null || n.getMetadata().getAnnotations() == null ? Map.of() : n.getMetadata().getAnnotations();
        return colourOf(ann.get(Names.ANN_NODE_MPS_ACTIVE));
    }

    /** A colour that is safe as a path segment, else the default. */
    public static String colourOf(String value) {
        return value != null && COLOUR.matcher(value.trim()).matches() ? value.trim() : Names.MPS_COLOUR_DEFAULT;
    }

    @Override public void close() {
        if (informer != null) informer.close();
    }
}
