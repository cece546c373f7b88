package io.mpshare.core.validation;

import io.mpshare.core.Names;
import io.mpshare.core.validation.Violation.Rule;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.LongFunction;

/**
 * One UID, one tenant (docs/decisions/tenant-isolation.md, "The UID is MPS's trust boundary"). MPS lets a client
 * terminate any other client of its UID ({@code terminate_client}, measured on the H200), and serves one UID per daemon
 * at a time, so pods that share a node's daemon share a UID. In a strict namespace bound to a UID by
 * {@link Names#ANN_CLIENT_UID}, every container of a shared-GPU pod must run as that UID; in any other strict namespace
 * no container may run as a UID another namespace has claimed; an unbound strict namespace gets a warning. Trusted
 * namespaces are not judged here (their pods may run as root, which can do more). The effective UID of a container is
 * its own {@code runAsUser}, else the pod's.
 */
public final class ClientUidRules {
    private ClientUidRules() {}

    /**
     * @param own           the binding of the pod's namespace
     * @param claimants     the namespaces bound to a UID (empty when none)
     * @param someUidBound  some namespace of the cluster is bound to a UID: a container of unknown UID (its image's user)
     *                      could then run as it, so in an unbound namespace it must say its UID
     * @param ephemeralOnly judge only the ephemeral containers (an UPDATE of {@code pods/ephemeralcontainers})
     */
    public static List<Violation> violations(PodView pod, Tenancy tenancy, ClientUid own, LongFunction<Set<String>> claimants, boolean someUidBound,
                                             boolean ephemeralOnly) {
        List<Violation> out = new ArrayList<>();
        if (tenancy != Tenancy.STRICT || !PodValidator.asksSharedGpu(pod)) return out;
        switch (own) {
            case ClientUid.Invalid(String text) -> out.add(new Violation(Rule.CLIENT_UID, "", "namespace " + pod.namespace() + " has annotation "
                    + Names.ANN_CLIENT_UID + "=\"" + text + "\", which is not a UID from 1 to " + ClientUid.MAX_UID
                    + ": ask the cluster admin to set one (kubectl annotate --overwrite namespace " + pod.namespace() + " " + Names.ANN_CLIENT_UID + "=<UID>)"));
            case ClientUid.Bound(long uid) -> bound(pod, uid, ephemeralOnly, out);
            case ClientUid.Unbound u -> claimedElsewhere(pod, claimants, someUidBound, ephemeralOnly, out);
        }
        return out;
    }

    /** For an unbound strict namespace: that its pods' GPU clients can be terminated by any pod of the same UID. */
    public static List<String> warnings(PodView pod, Tenancy tenancy, ClientUid own) {
        if (tenancy != Tenancy.STRICT || !PodValidator.asksSharedGpu(pod) || !(own instanceof ClientUid.Unbound)) return List.of();
        return List.of("pod " + pod.describe() + ": namespace " + pod.namespace() + " has no " + Names.ANN_CLIENT_UID
                + ", so any pod that runs as the same UID can terminate this pod's GPU clients (MPS lets clients of one UID terminate"
                + " each other): ask the cluster admin to bind a UID to the namespace (kubectl annotate namespace " + pod.namespace()
                + " " + Names.ANN_CLIENT_UID + "=<UID>)");
    }

    private static void bound(PodView pod, long uid, boolean ephemeralOnly, List<Violation> out) {
        String fix = "namespace " + pod.namespace() + " runs its shared-GPU pods as UID " + uid + " (annotation " + Names.ANN_CLIENT_UID
                + "): set securityContext.runAsUser: " + uid + " or leave it unset";
        Long podUid = pod.security().runAsUser();
        boolean podReported = false;
        for (ContainerView c : judged(pod, ephemeralOnly)) {
            Long own = c.security().runAsUser();
            Long eff = own != null ? own : podUid;
            if (eff != null && eff == uid) continue;
            if (own != null) out.add(new Violation(Rule.CLIENT_UID, c.name(), c.describe() + " runs as UID " + own + ", but " + fix));
            else if (podUid != null) {
                if (!podReported) out.add(new Violation(Rule.CLIENT_UID, "", "the pod runs as UID " + podUid + ", but " + fix));
                podReported = true;
            } else out.add(new Violation(Rule.CLIENT_UID, c.name(), c.describe() + " sets no runAsUser, and " + fix.replace(" or leave it unset", "")));
        }
    }

    private static void claimedElsewhere(PodView pod, LongFunction<Set<String>> claimants, boolean someUidBound, boolean ephemeralOnly,
                                         List<Violation> out) {
        Set<Long> seen = new HashSet<>();
        boolean unknownReported = false;
        for (ContainerView c : judged(pod, ephemeralOnly)) {
            Long eff = c.security().runAsUser() != null ? c.security().runAsUser() : pod.security().runAsUser();
            if (eff == null && someUidBound && !unknownReported && TenancyRules.rootReason(pod, c) == null) {
                unknownReported = true; // root without a UID is the ROOT rule's
                out.add(new Violation(Rule.CLIENT_UID, c.name(), c.describe() + " sets no runAsUser, so it runs as its image's user, which"
                        + " could be a UID bound to another namespace (annotation " + Names.ANN_CLIENT_UID + "): set securityContext.runAsUser"
                        + " to a UID no other namespace is bound to"));
            }
            if (eff == null || eff == 0 || !seen.add(eff)) continue;
            TreeSet<String> others = new TreeSet<>(claimants.apply(eff));
            others.remove(pod.namespace());
            if (others.isEmpty()) continue;
            out.add(new Violation(Rule.CLIENT_UID, c.name(), "UID " + eff + " belongs to namespace " + others.first() + " (annotation "
                    + Names.ANN_CLIENT_UID + "), and MPS lets a client terminate any client of its UID: run " + c.describe() + " as another UID"));
        }
    }

    private static List<ContainerView> judged(PodView pod, boolean ephemeralOnly) {
        return ephemeralOnly ? pod.containers().stream().filter(ContainerView::ephemeral).toList() : pod.containers();
    }
}
