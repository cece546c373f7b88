package io.mpshare.admission.review;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceRequirements;
import io.mpshare.core.validation.ContainerView;
import io.mpshare.core.validation.PodView;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** v1.Pod to the core's {@link PodView}: nothing but field copying. */
public final class PodViews {
    private PodViews() {}

    /** @param namespace the review's namespace, used when the pod's own is not set yet (it usually is not) */
    public static PodView of(Pod pod, String namespace) {
        ObjectMeta meta = pod.getMetadata() == null ? new ObjectMeta() : pod.getMetadata();
        PodSpec spec = pod.getSpec() == null ? new PodSpec() : pod.getSpec();
        String ns = meta.getNamespace() != null && !meta.getNamespace().isBlank() ? meta.getNamespace() : namespace;
        // pods of Jobs and ReplicaSets have no name yet at admission: show "mps-sample-*" from generateName
        String name = meta.getName() != null ? meta.getName() : meta.getGenerateName() != null ? meta.getGenerateName() + "*" : "";
        List<ContainerView> cs = new ArrayList<>();
        for (Container c : nonNull(spec.getInitContainers())) cs.add(container(c, true));
        for (Container c : nonNull(spec.getContainers())) cs.add(container(c, false));
        return new PodView(ns, name, meta.getLabels() == null ? Map.of() : meta.getLabels(), spec.getSchedulerName(), cs,
                Boolean.TRUE.equals(spec.getHostIPC()));
    }

    private static ContainerView container(Container c, boolean init) {
        ResourceRequirements r = c.getResources();
        boolean privileged = c.getSecurityContext() != null && Boolean.TRUE.equals(c.getSecurityContext().getPrivileged());
        List<String> env = new ArrayList<>();
        for (EnvVar e : nonNull(c.getEnv())) if (e.getName() != null) env.add(e.getName());
        return new ContainerView(c.getName() == null ? "" : c.getName(), init,
                text(r == null ? null : r.getLimits()), text(r == null ? null : r.getRequests()), privileged, env);
    }

    private static Map<String, String> text(Map<String, Quantity> q) {
        Map<String, String> m = new LinkedHashMap<>();
        if (q != null) q.forEach((k, v) -> m.put(k, v == null ? "" : nullToEmpty(v.getAmount()) + nullToEmpty(v.getFormat())));
        return m;
    }

    private static String nullToEmpty(String s) { return s == null ? "" : s; }

    private static <T> List<T> nonNull(List<T> l) { return l == null ? List.of() : l; }
}
