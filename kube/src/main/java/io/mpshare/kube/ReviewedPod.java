package io.mpshare.kube;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.admission.v1.AdmissionRequest;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.mpshare.core.validation.PodView;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The pod an AdmissionReview request carries, read once: the admission rules' {@link PodView}, and which
 * {@code securityContext} objects the pod writes (a JSON Patch that sets a field inside one must add the object
 * itself where it is missing, and must not replace one that is there).
 *
 * @param view                     the pod as the rules see it
 * @param podSecurityContext       {@code spec.securityContext} is present
 * @param initSecurityContexts     per {@code spec.initContainers[i]}: its {@code securityContext} is present
 * @param containerSecurityContexts per {@code spec.containers[i]}: its {@code securityContext} is present
 */
public record ReviewedPod(PodView view, boolean podSecurityContext, List<Boolean> initSecurityContexts,
                          List<Boolean> containerSecurityContexts) {
    public ReviewedPod {
        initSecurityContexts = List.copyOf(initSecurityContexts);
        containerSecurityContexts = List.copyOf(containerSecurityContexts);
    }

    /** The request's object when it is a v1.Pod (as fabric8 decoded it, or as raw JSON it converts); else empty. */
    public static Optional<ReviewedPod> of(AdmissionRequest req, KubernetesSerialization json) {
        Object obj = req.getObject();
        if (obj instanceof Pod p) return Optional.of(of(p, req.getNamespace()));
        if (obj != null && req.getKind() != null && "Pod".equals(req.getKind().getKind()) && orEmpty(req.getKind().getGroup()).isEmpty())
            return Optional.of(of(json.convertValue(obj, Pod.class), req.getNamespace()));
        return Optional.empty();
    }

    /** @param namespace the review's namespace, used when the pod's own is not set yet (it usually is not) */
    public static ReviewedPod of(Pod pod, String namespace) {
        var spec = pod.getSpec();
        return new ReviewedPod(PodViews.of(pod, namespace), spec != null && spec.getSecurityContext() != null,
                present(spec == null ? null : spec.getInitContainers()), present(spec == null ? null : spec.getContainers()));
    }

    private static List<Boolean> present(List<Container> cs) {
        List<Boolean> out = new ArrayList<>();
        if (cs != null) for (Container c : cs) out.add(c.getSecurityContext() != null);
        return out;
    }

    private static String orEmpty(String s) { return s == null ? "" : s; }
}
