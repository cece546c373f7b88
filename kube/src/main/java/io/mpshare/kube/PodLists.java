package io.mpshare.kube;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;

import java.util.ArrayList;
import java.util.List;

/** Pod reads that are one LIST call each, straight from the API server (a consistent read, no informer). */
public final class PodLists {
    private PodLists() {}

    /** Every pod of the cluster. */
    public static List<KubePod> all(KubernetesClient client) {
        return KubePod.all(client.pods().inAnyNamespace().list().getItems());
    }

    /**
     * The pods bound to {@code node} now ({@code fieldSelector=spec.nodeName=<node>}; the same filter applied here too,
     * for API test servers that ignore field selectors).
     */
    public static List<KubePod> onNode(KubernetesClient client, String node) {
        List<KubePod> out = new ArrayList<>();
        for (Pod p : client.pods().inAnyNamespace().withField("spec.nodeName", node).list().getItems()) {
            KubePod k = KubePod.of(p);
            if (node.equals(k.nodeName())) out.add(k);
        }
        return out;
    }
}
