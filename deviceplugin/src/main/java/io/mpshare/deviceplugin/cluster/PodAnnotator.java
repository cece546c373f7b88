package io.mpshare.deviceplugin.cluster;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.mpshare.core.Names;
import io.mpshare.core.model.PodKey;

import java.util.Map;
import java.util.concurrent.Executor;
import java.util.logging.Logger;

/**
 * Writes pod annotations with JSON merge patches (no resourceVersion: only our keys change, so there is nothing to
 * conflict with). Calls run on the given executor, off the Allocate path, with a few retries.
 */
public final class PodAnnotator implements PodWrites {
    private static final Logger LOG = Logger.getLogger(PodAnnotator.class.getName());
    private static final int ATTEMPTS = 3;

    private final KubernetesClient client;
    private final Executor executor;

    public PodAnnotator(KubernetesClient client, Executor executor) {
        this.client = client;
        this.executor = executor;
    }

    /** {@code mpshare.io/assigned=true} and the ACK twin. */
    @Override public void markAssigned(PodKey pod) {
        patch(pod, Map.of(Names.ANN_ASSIGNED, "true", Names.ACK_GPU_MEM_ASSIGNED, "true"));
    }

    /** {@code assigned}, its ACK twin and the colour(s) given, in one merge patch. */
    @Override public void markAssigned(PodKey pod, String colours) {
        patch(pod, Map.of(Names.ANN_ASSIGNED, "true", Names.ACK_GPU_MEM_ASSIGNED, "true", Names.ANN_MPS_COLOUR, colours));
    }

    @Override public void patch(PodKey pod, Map<String, String> annotations) {
        executor.execute(() -> patchNow(pod, annotations));
    }

    /** Synchronous; true when it was written. A pod that is gone is not an error. */
    public boolean patchNow(PodKey pod, Map<String, String> annotations) {
        String json = client.getKubernetesSerialization().asJson(Map.of("metadata", Map.of("annotations", annotations)));
        for (int attempt = 1; ; attempt++) {
            try {
                var r = client.pods().inNamespace(pod.namespace()).withName(pod.name()).patch(PatchContext.of(PatchType.JSON_MERGE), json);
                return r != null;
            } catch (RuntimeException e) {
                if (attempt >= ATTEMPTS) {
                    LOG.warning("annotating pod " + pod + " with " + annotations.keySet() + " failed: " + e.getMessage());
                    return false;
                }
            }
        }
    }
}
