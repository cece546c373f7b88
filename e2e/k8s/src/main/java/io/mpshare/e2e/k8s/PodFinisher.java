package io.mpshare.e2e.k8s;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;

import java.util.Set;
import java.util.logging.Logger;

/**
 * kubelet's last step for a deleted pod, on nodes that have no kubelet ({@code bin/dev-cluster}'s fake GPU nodes). The
 * API server deletes a pod bound to a node gracefully: it sets {@code deletionTimestamp} and waits for that node's
 * kubelet to stop the containers and delete the pod for good (grace period 0). With no kubelet the pod would stay
 * {@code Terminating} for good, and the extender and {@code mpshare inspect} would keep counting its GPU memory. This
 * does what the kubelet would, at once: there are no containers to stop.
 *
 * <p>Only pods bound to the nodes given, and only once their deletion has begun. The pod is read again and deleted
 * only if it is still the same one (UID); fabric8 cannot send a UID precondition together with a grace period, so a
 * pod of the same name created in the moment between that read and the delete would be deleted too: acceptable on a
 * local development cluster, which is the only place this runs.
 */
public final class PodFinisher implements AutoCloseable {
    private static final Logger LOG = Logger.getLogger(PodFinisher.class.getName());

    private final KubernetesClient client;
    private final Set<String> nodes;
    private final SharedIndexInformer<Pod> informer;

    private PodFinisher(KubernetesClient client, Set<String> nodes) {
        this.client = client;
        this.nodes = Set.copyOf(nodes);
        this.informer = client.pods().inAnyNamespace().inform(new ResourceEventHandler<>() {
            @Override public void onAdd(Pod p) { finishIfDeleted(p); }

            @Override public void onUpdate(Pod old, Pod p) { finishIfDeleted(p); }

            @Override public void onDelete(Pod p, boolean unknownFinalState) { }
        }, 60_000);
    }

    /** Starts watching every namespace's pods; those bound to {@code nodes} are finished once deleted. */
    public static PodFinisher start(KubernetesClient client, Set<String> nodes) {
        return new PodFinisher(client, nodes);
    }

    private void finishIfDeleted(Pod p) {
        if (p.getMetadata().getDeletionTimestamp() == null || p.getSpec() == null || !nodes.contains(p.getSpec().getNodeName())) return;
        String ns = p.getMetadata().getNamespace(), name = p.getMetadata().getName();
        try {
            Pod now = client.pods().inNamespace(ns).withName(name).get();
            if (now == null || !now.getMetadata().getUid().equals(p.getMetadata().getUid())) return;
            client.pods().inNamespace(ns).withName(name).withGracePeriod(0).delete();
            LOG.info("finished " + ns + "/" + name + " on " + p.getSpec().getNodeName() + " (no kubelet there)");
        } catch (KubernetesClientException e) {
            LOG.warning("could not finish " + ns + "/" + name + ": " + e.getMessage() + " (the resync tries again)");
        }
    }

    @Override public void close() { informer.close(); }
}
