package io.mpshare.admission.review;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodSecurityContext;
import io.fabric8.kubernetes.api.model.SecurityContext;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The chart's opt-in {@code tenancy.defaultRunAsUser}: JSON Patch operations that make a shared-GPU pod of a strict
 * namespace run as a non-root MPS client where it says nothing itself. Sets the pod-level {@code runAsUser},
 * {@code runAsGroup} and {@code runAsNonRoot: true} when unset (the pod-level UID is what the extender reads for its
 * one-UID-per-GPU rule), and {@code allowPrivilegeEscalation: false} on each container that leaves it unset.
 * Nothing explicit is overwritten: a container that asks {@code runAsUser: 0} is still refused by the validator.
 *
 * @param uid the UID to run as (non-zero)
 * @param gid the group to run as
 */
public record SecurityDefaults(long uid, long gid) {
    public SecurityDefaults {
        if (uid <= 0) throw new IllegalArgumentException("the default runAsUser must be a non-root UID above 0, got " + uid);
        if (gid < 0) throw new IllegalArgumentException("the default runAsGroup must be >= 0, got " + gid);
    }

    /** The operations for {@code pod}, in the order they apply; empty when it already says everything. */
    public List<Map<String, Object>> ops(Pod pod) {
        List<Map<String, Object>> ops = new ArrayList<>();
        PodSecurityContext sc = pod.getSpec().getSecurityContext();
        if (sc == null) {
            Map<String, Object> v = new LinkedHashMap<>();
            v.put("runAsUser", uid);
            v.put("runAsGroup", gid);
            v.put("runAsNonRoot", true);
            ops.add(add("/spec/securityContext", v));
        } else {
            if (sc.getRunAsUser() == null) ops.add(add("/spec/securityContext/runAsUser", uid));
            if (sc.getRunAsGroup() == null) ops.add(add("/spec/securityContext/runAsGroup", gid));
            if (sc.getRunAsNonRoot() == null) ops.add(add("/spec/securityContext/runAsNonRoot", true));
        }
        noEscalation(ops, "initContainers", pod.getSpec().getInitContainers());
        noEscalation(ops, "containers", pod.getSpec().getContainers());
        return ops;
    }

    private static void noEscalation(List<Map<String, Object>> ops, String list, List<Container> cs) {
        if (cs == null) return;
        for (int i = 0; i < cs.size(); i++) {
            SecurityContext sc = cs.get(i).getSecurityContext();
            String at = "/spec/" + list + "/" + i + "/securityContext";
            if (sc == null) ops.add(add(at, Map.of("allowPrivilegeEscalation", false)));
            // the API server refuses allowPrivilegeEscalation: false beside privileged or SYS_ADMIN; the validator says why instead
            else if (sc.getAllowPrivilegeEscalation() == null && !Boolean.TRUE.equals(sc.getPrivileged()) && !addsSysAdmin(sc))
                ops.add(add(at + "/allowPrivilegeEscalation", false));
        }
    }

    private static boolean addsSysAdmin(SecurityContext sc) {
        if (sc.getCapabilities() == null || sc.getCapabilities().getAdd() == null) return false;
        for (String c : sc.getCapabilities().getAdd())
            if (c.toUpperCase(Locale.ROOT).replaceFirst("^CAP_", "").equals("SYS_ADMIN")) return true;
        return false;
    }

    private static Map<String, Object> add(String path, Object value) {
        Map<String, Object> op = new LinkedHashMap<>();
        op.put("op", "add");
        op.put("path", path);
        op.put("value", value);
        return op;
    }
}
