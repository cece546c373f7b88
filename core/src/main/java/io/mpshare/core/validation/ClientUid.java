package io.mpshare.core.validation;

import io.mpshare.core.Names;

/**
 * A namespace's {@link Names#ANN_CLIENT_UID} annotation as read: no binding, the one UID its shared-GPU pods run as,
 * or text that is not a UID (a namespace with such a binding admits no shared-GPU pod in strict tenancy: fail closed).
 */
public sealed interface ClientUid {
    /** The largest UID Kubernetes accepts in {@code runAsUser}. */
    long MAX_UID = Integer.MAX_VALUE;
    ClientUid UNBOUND = new Unbound();

    /** No annotation: the namespace's pods choose their UID. */
    record Unbound() implements ClientUid {}

    /** The namespace's pods run as {@code uid}, and no other namespace's may. */
    record Bound(long uid) implements ClientUid {
        public Bound {
            if (uid < 1 || uid > MAX_UID) throw new IllegalArgumentException("a client UID must be from 1 to " + MAX_UID + ", got " + uid);
        }
    }

    /** An annotation that is not a UID from 1 to {@link #MAX_UID}, as written. */
    record Invalid(String text) implements ClientUid {
        public Invalid { text = text == null ? "" : text; }
    }

    /** Reads the annotation's text; null is {@link #UNBOUND}. Only plain decimal digits are a UID (no sign, no spaces). */
    public static ClientUid parse(String text) {
        if (text == null) return UNBOUND;
        if (!text.matches("[0-9]{1,10}")) return new Invalid(text);
        long v = Long.parseLong(text);
        return v >= 1 && v <= MAX_UID ? new Bound(v) : new Invalid(text);
    }
}
