package io.mpshare.deviceplugin.policing;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.mpshare.core.model.PodKey;
import io.mpshare.policing.Evictor;

import java.util.Optional;
import java.util.logging.Logger;

/**
 * {@link Evictor} by deletion: GET the pod, then {@code DELETE} it with a {@code resourceVersion} precondition, so only
 * the pod that was judged (same UID, unchanged since) is deleted, with its own grace period. Not the Eviction API:
 * an Eviction names no node, so the admission policy that keeps the node agent to its own node's pods
 * (charts/mpshare/templates/node-agent-policy.yaml) could not check it, while a DELETE's old object is the pod
 * (docs/decisions/node-agent-least-privilege.md). The cost: PodDisruptionBudgets do not hold the policer back,
 * as they do not hold back {@code terminate} either. 404 or another UID → {@link Result#GONE}; 409 (the pod
 * changed meanwhile) and other errors → {@link Result#FAILED}, tried again next cycle.
 */
public final class KubeEvictor implements Evictor {
    private static final Logger LOG = Logger.getLogger(KubeEvictor.class.getName());

    private final KubernetesClient client;
    private final PodIndex pods;

    public KubeEvictor(KubernetesClient client, PodIndex pods) {
        this.client = client;
        this.pods = pods;
    }

    @Override public Result evict(String podUid, String reason) {
        Optional<PodKey> key = pods.get(podUid);
        if (key.isEmpty()) return Result.GONE;
        PodKey k = key.get();
        try {
            var pod = client.pods().inNamespace(k.namespace()).withName(k.name());
            Pod now = pod.get();
            if (now == null || !podUid.equals(now.getMetadata().getUid())) return Result.GONE;
            if (now.getMetadata().getDeletionTimestamp() != null) return Result.EVICTED; // already on its way out
            boolean ok = !pod.lockResourceVersion(now.getMetadata().getResourceVersion()).delete().isEmpty();
            if (ok) LOG.info("deleted pod " + k + " (" + reason + ")");
            return ok ? Result.EVICTED : Result.GONE;
        } catch (KubernetesClientException e) {
            if (e.getCode() == 404) return Result.GONE;
            LOG.warning("deleting pod " + k + " failed: " + e.getCode() + " " + e.getMessage());
            return Result.FAILED;
        } catch (RuntimeException e) {
            LOG.warning("deleting pod " + k + " failed: " + e);
            return Result.FAILED;
        }
    }
}
