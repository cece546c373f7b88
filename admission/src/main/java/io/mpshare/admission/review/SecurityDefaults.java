package io.mpshare.admission.review;

import io.mpshare.core.validation.ContainerView;
import io.mpshare.core.validation.SecurityView;
import io.mpshare.kube.ReviewedPod;

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
    public List<Map<String, Object>> ops(ReviewedPod pod) {
        List<Map<String, Object>> ops = new ArrayList<>();
        SecurityView sc = pod.view().security();
        if (!pod.podSecurityContext()) {
            Map<String, Object> v = new LinkedHashMap<>();
            v.put("runAsUser", uid);
            v.put("runAsGroup", gid);
            v.put("runAsNonRoot", true);
            ops.add(add("/spec/securityContext", v));
        } else {
            if (sc.runAsUser() == null) ops.add(add("/spec/securityContext/runAsUser", uid));
            if (sc.runAsGroup() == null) ops.add(add("/spec/securityContext/runAsGroup", gid));
            if (sc.runAsNonRoot() == null) ops.add(add("/spec/securityContext/runAsNonRoot", true));
        }
        List<ContainerView> init = new ArrayList<>(), app = new ArrayList<>();
        for (ContainerView c : pod.view().containers()) if (!c.ephemeral()) (c.init() ? init : app).add(c);
        noEscalation(ops, "initContainers", init, pod.initSecurityContexts());
        noEscalation(ops, "containers", app, pod.containerSecurityContexts());
        return ops;
    }

    private static void noEscalation(List<Map<String, Object>> ops, String list, List<ContainerView> cs, List<Boolean> present) {
        for (int i = 0; i < cs.size(); i++) {
            SecurityView sc = cs.get(i).security();
            String at = "/spec/" + list + "/" + i + "/securityContext";
            if (!present.get(i)) ops.add(add(at, Map.of("allowPrivilegeEscalation", false)));
            // the API server refuses allowPrivilegeEscalation: false beside privileged or SYS_ADMIN; the validator says why instead
            else if (sc.allowPrivilegeEscalation() == null && !cs.get(i).privileged() && !addsSysAdmin(sc))
                ops.add(add(at + "/allowPrivilegeEscalation", false));
        }
    }

    private static boolean addsSysAdmin(SecurityView sc) {
        for (String c : sc.capAdd())
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
