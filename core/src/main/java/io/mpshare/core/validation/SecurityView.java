package io.mpshare.core.validation;

import java.util.List;

/**
 * The parts of a {@code securityContext} the tenancy rules judge (pod level: only the first three are set).
 * Null means "not set": the effective value then comes from the pod level or the image.
 *
 * @param capAdd    {@code capabilities.add} as written ({@code SYS_ADMIN} or {@code CAP_SYS_ADMIN})
 * @param procMount {@code procMount} ({@code Default} or {@code Unmasked}), null when not set
 */
public record SecurityView(Long runAsUser, Long runAsGroup, Boolean runAsNonRoot, Boolean allowPrivilegeEscalation,
                           List<String> capAdd, String procMount) {
    /** Nothing set (the image's user, root for most images). */
    public static final SecurityView NONE = new SecurityView(null, null, null, null, List.of(), null);

    public SecurityView {
        capAdd = capAdd == null ? List.of() : List.copyOf(capAdd);
    }

    /** A pod-level context with only the user fields. */
    public static SecurityView pod(Long runAsUser, Long runAsGroup, Boolean runAsNonRoot) {
        return new SecurityView(runAsUser, runAsGroup, runAsNonRoot, null, List.of(), null);
    }

    /** What a strict namespace wants on a container: a non-root UID and no privilege escalation. */
    public static SecurityView nonRoot(long uid) { return new SecurityView(uid, uid, true, false, List.of(), null); }
}
