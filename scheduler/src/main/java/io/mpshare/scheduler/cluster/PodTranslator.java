package io.mpshare.scheduler.cluster;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodSecurityContext;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceRequirements;
import io.fabric8.kubernetes.api.model.SecurityContext;
import io.mpshare.core.Names;
import io.mpshare.core.model.PodKey;
import io.mpshare.scheduler.PodFacts;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** fabric8 {@link Pod} → {@link PodFacts} (the same facts the wire reader pulls from JSON), and small pod questions. */
public final class PodTranslator {
    private PodTranslator() {}

    public static PodFacts facts(Pod pod) {
        var md = pod.getMetadata();
        var spec = pod.getSpec();
        Map<String, String> labels = md.getLabels();
        List<PodFacts.Container> cs = new ArrayList<>();
        Long podUid = null;
        if (spec != null) {
            PodSecurityContext sc = spec.getSecurityContext();
            podUid = sc == null ? null : sc.getRunAsUser();
            add(cs, spec.getContainers(), false);
            add(cs, spec.getInitContainers(), true);
        }
        Map<String, String> ann = md.getAnnotations();
        return new PodFacts(md.getNamespace(), md.getName(), md.getUid(),
                labels == null ? null : labels.get(Names.LABEL_GPU_COUNT), podUid, cs, ann == null ? null : ann.get(Names.ANN_CONTEXT_RESERVE));
    }

    private static void add(List<PodFacts.Container> out, List<Container> cs, boolean init) {
        if (cs == null) return;
        for (Container c : cs) {
            ResourceRequirements r = c.getResources();
            Map<String, Quantity> lim = r == null ? null : r.getLimits(), req = r == null ? null : r.getRequests();
            SecurityContext sc = c.getSecurityContext();
            out.add(new PodFacts.Container(c.getName() == null ? "" : c.getName(), init,
                    text(lim, req, Names.RESOURCE_GPU_MEM), text(lim, req, Names.RESOURCE_GPU_CORE), sc == null ? null : sc.getRunAsUser(),
                    init && Names.RESTART_POLICY_ALWAYS.equals(c.getRestartPolicy())));
        }
    }

    private static String text(Map<String, Quantity> lim, Map<String, Quantity> req, String resource) {
        Quantity q = lim == null ? null : lim.get(resource);
        if (q == null && req != null) q = req.get(resource);
        if (q == null) return null;
        String f = q.getFormat();
        return q.getAmount() + (f == null ? "" : f);
    }

    public static PodKey key(Pod pod) {
        String ns = pod.getMetadata().getNamespace();
        return PodKey.of(ns == null ? "" : ns, pod.getMetadata().getName());
    }

    public static String uid(Pod pod) {
        String u = pod.getMetadata().getUid();
        return u == null ? "" : u;
    }

    /** spec.nodeName, or null when not bound. */
    public static String nodeName(Pod pod) {
        String n = pod.getSpec() == null ? null : pod.getSpec().getNodeName();
        return n == null || n.isEmpty() ? null : n;
    }

    /** Succeeded or Failed: its containers are gone and its GPUs are free. */
    public static boolean finished(Pod pod) {
        String phase = pod.getStatus() == null ? null : pod.getStatus().getPhase();
        return "Succeeded".equals(phase) || "Failed".equals(phase);
    }

    public static Map<String, String> annotations(Pod pod) {
        Map<String, String> a = pod.getMetadata().getAnnotations();
        return a == null ? Map.of() : a;
    }
}
