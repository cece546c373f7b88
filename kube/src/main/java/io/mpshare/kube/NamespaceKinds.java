package io.mpshare.kube;

import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.mpshare.core.Names;
import io.mpshare.core.isolation.FaultDomains;
import io.mpshare.core.isolation.FaultDomains.Choice;
import io.mpshare.core.isolation.FaultDomains.Kind;

import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.logging.Logger;

/**
 * The MPS fault-domain kind each namespace asks: its label {@link Names#LABEL_FAULT_DOMAIN} (set by the cluster admin;
 * pod authors cannot write their namespace), else the cluster default. From an informer on Namespaces (the chart grants
 * the device plugin and the extender get, list and watch on namespaces). A label value that is no kind is logged once and
 * the default applies. Before {@link #start} every namespace gets the default. The device plugin chooses each pod's domain
 * with it; the extender places by the same answer.
 */
public final class NamespaceKinds implements Function<String, Choice>, AutoCloseable {
    private static final Logger LOG = Logger.getLogger(NamespaceKinds.class.getName());

    private final KubernetesClient client;
    private final Kind clusterDefault;
    private final Set<String> warned = ConcurrentHashMap.newKeySet();
    private SharedIndexInformer<Namespace> informer;

    public NamespaceKinds(KubernetesClient client, Kind clusterDefault) {
        this.client = client;
        this.clusterDefault = clusterDefault;
    }

    public NamespaceKinds start(Duration resync) {
        informer = client.namespaces().inform(null, resync.toMillis());
        return this;
    }

    /** Waits for the first list; pods are not given domains before it (a labelled namespace would get the default). */
    public void awaitSynced(Duration timeout) throws InterruptedException {
        long end = System.nanoTime() + timeout.toNanos();
        while (informer == null || !informer.hasSynced()) {
            if (System.nanoTime() > end) throw new IllegalStateException("namespaces not listed within " + timeout.toSeconds()
                    + " s: get, list and watch on namespaces are needed to read " + Names.LABEL_FAULT_DOMAIN);
            TimeUnit.MILLISECONDS.sleep(20);
        }
    }

    public Kind clusterDefault() { return clusterDefault; }

    @Override public Choice apply(String namespace) {
        Namespace ns = informer == null ? null : informer.getStore().getByKey(namespace);
        Map<String, String> labels = ns == null || ns.getMetadata().getLabels() == null ? Map.of() : ns.getMetadata().getLabels();
        String value = labels.get(Names.LABEL_FAULT_DOMAIN);
        Choice c = FaultDomains.kindOf(namespace, value, clusterDefault);
        if (value != null && Kind.parse(value).isEmpty() && warned.add(namespace + "=" + value))
            LOG.warning(c.why() + ": set it to tenant, pod or node");
        return c;
    }

    @Override public void close() {
        if (informer != null) informer.close();
    }
}
