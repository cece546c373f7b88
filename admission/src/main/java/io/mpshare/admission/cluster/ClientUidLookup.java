package io.mpshare.admission.cluster;

import io.mpshare.core.validation.ClientUid;

import java.util.Set;

/** Which namespace is bound to which client UID ({@code mpshare.io/client-uid}), as the webhook last saw the namespaces. */
public interface ClientUidLookup {
    /** The binding of {@code namespace}; {@link ClientUid#UNBOUND} for a namespace not (yet) seen. */
    ClientUid of(String namespace);

    /** The namespaces bound to {@code uid}, empty when none. */
    Set<String> claimants(long uid);

    /** Some namespace is bound to a UID. */
    boolean anyBound();
}
