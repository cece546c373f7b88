package io.mpshare.core.model;

import io.mpshare.core.isolation.FaultDomains;
import io.mpshare.core.isolation.FaultDomains.Kind;

import java.util.Objects;
import java.util.OptionalLong;

/**
 * Which MPS daemon will serve a pod's clients on the GPU it is placed on, as placement sees it: the kind of its fault
 * domain and the key that names the domain on one node ({@link FaultDomains#key}). Two pods on one GPU share a daemon
 * exactly when their serving domains are equal.
 *
 * <p>Placement needs two things from it: whether the one-UID-per-daemon rule applies (only among pods of the node
 * daemon: MPS serves one UID per daemon at a time, and a {@code tenant} or {@code pod} domain has a daemon of its own),
 * and whether placing the pod on a GPU starts one more daemon there (whose servers then time-slice with the GPU's
 * others). The node daemon's key is empty: it is the same daemon for every pod of the node.
 *
 * @param kind the domain's kind: the namespace's (a pod of several GPUs: {@link Kind#NODE})
 * @param key  namespace and client UID ({@code tenant}), the pod's UID ({@code pod}), empty ({@code node})
 */
public record ServingDomain(Kind kind, String key) {
    /** The node daemon: every pod of a {@code node}-kind namespace and every pod of several GPUs. */
    public static final ServingDomain NODE_DAEMON = new ServingDomain(Kind.NODE, "");

    public ServingDomain {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(key, "key");
        if (kind == Kind.NODE && !key.isEmpty()) throw new IllegalArgumentException("the node daemon's key is empty, not '" + key + "'");
    }

    /**
     * The domain of a pod of namespace kind {@code namespaceKind} booked on {@code gpuCount} GPUs, as
     * {@link FaultDomains#choose} gives it (suspects aside: the extender does not know them; a suspect's own domain
     * costs the GPU a daemon, never room).
     */
    public static ServingDomain of(Kind namespaceKind, String namespace, String podUid, OptionalLong clientUid, int gpuCount) {
        if (gpuCount > 1 || namespaceKind == Kind.NODE) return NODE_DAEMON;
        return new ServingDomain(namespaceKind, FaultDomains.key(namespaceKind, new FaultDomains.Member(namespace, podUid, clientUid, "")));
    }

    /** Served by the node daemon, where MPS serves one UID at a time. */
    public boolean onNodeDaemon() { return kind == Kind.NODE; }

    @Override public String toString() { return kind.label() + (key.isEmpty() ? "" : ":" + key); }
}
