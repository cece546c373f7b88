package io.mpshare.deviceplugin.policing;

import io.fabric8.kubernetes.api.model.DeleteOptionsBuilder;
import io.fabric8.kubernetes.api.model.policy.v1.Eviction;
import io.fabric8.kubernetes.api.model.policy.v1.EvictionBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.mpshare.core.model.PodKey;
import io.mpshare.policing.Evictor;

import java.util.Optional;
import java.util.logging.Logger;

/**
 * {@link Evictor} over the Eviction API: {@code POST pods/<name>/eviction} with a policy/v1 Eviction, which respects
 * PodDisruptionBudgets. fabric8 answers false on a 429 (a PDB refused it) → {@link Result#BLOCKED}; 404 → {@link Result#GONE}.
 * The client given should not retry (fabric8 retries a 429 with backoff for over a minute otherwise; see
 * {@link NodePolicer#noRetry}): the policer calls this on its own thread and tries again after {@code retryAfter}.
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
        Eviction eviction = new EvictionBuilder().withNewMetadata().withNamespace(k.namespace()).withName(k.name()).endMetadata()
                .withDeleteOptions(new DeleteOptionsBuilder().withNewPreconditions().withUid(podUid).endPreconditions().build()).build();
        try {
            boolean ok = client.pods().inNamespace(k.namespace()).withName(k.name()).evict(eviction);
            if (ok) LOG.info("evicted pod " + k + " (" + reason + ")");
            return ok ? Result.EVICTED : Result.BLOCKED;
        } catch (KubernetesClientException e) {
            if (e.getCode() == 404) return Result.GONE;
            if (e.getCode() == 429) return Result.BLOCKED;
            if (e.getCode() == 409) return Result.GONE;   // the UID precondition failed: a new pod of that name
            LOG.warning("evicting pod " + k + " failed: " + e.getCode() + " " + e.getMessage());
            return Result.FAILED;
        } catch (RuntimeException e) {
            LOG.warning("evicting pod " + k + " failed: " + e);
            return Result.FAILED;
        }
    }
}
