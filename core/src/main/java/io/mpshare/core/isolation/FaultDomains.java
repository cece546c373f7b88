package io.mpshare.core.isolation;

import io.mpshare.core.Names;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * Which MPS daemon serves a pod's clients: its <b>fault domain</b>. Pure; the device plugin, the extender, the simulator
 * and {@code mpshare inspect} call it alike.
 *
 * <p>MPS shares fate within one server (FACTS.md): one client's fatal fault kills every other client of the server at
 * once, and the server refuses new clients until each of them has exited; two control daemons on one GPU are two fault
 * domains. So a pod's domain decides whose faults reach it:
 * <ul>
 *   <li><b>kind</b>, per namespace, from the admin-owned label {@link Names#LABEL_FAULT_DOMAIN} (the cluster default for
 *       unlabelled namespaces): {@link Kind#TENANT} (the pods of one namespace and client UID on a GPU: MPS serves one
 *       UID per server at a time, so a domain never mixes UIDs), {@link Kind#POD} (one pod: MPS concurrency only among
 *       its own processes), {@link Kind#NODE} (the colour's node daemon, every pod of every GPU that is served there:
 *       ACK's and the seed's shape, for trusted namespaces). A pod named a fault <b>suspect</b> gets {@code pod} kind
 *       whatever its namespace says;</li>
 *   <li><b>key</b> per kind: namespace and client UID, the pod's UID, the node;</li>
 *   <li><b>id</b> per GPU: {@code t-}/{@code p-} and 12 hex characters of SHA-256 over kind, key and GPU UUID — short
 *       and path-safe, since the daemon's socket {@code <run>/<colour>/d/<id>/pipe/control} must stay under the 108
 *       bytes of a unix socket path. The node daemon's id is {@link #NODE_DAEMON}.</li>
 * </ul>
 * A domain's daemon serves one GPU and a container has one {@code CUDA_MPS_PIPE_DIRECTORY}, so a pod booked on several
 * GPUs is served by the node daemon, which sees them all, whatever its kind.
 *
 * <p>Inputs are trusted ones only: the namespace, its label (admin-owned), the pod's UID, the effective
 * {@code runAsUser} of its GPU containers (admission pins it in strict namespaces) and the GPU — never an annotation or
 * label the pod's author writes.
 */
public final class FaultDomains {
    private FaultDomains() {}

    /** The node daemon's id: the colour's own daemon ({@code <run>/<colour>/pipe}), which sees every GPU. */
    public static final String NODE_DAEMON = "node";
    /** How many hex characters of the hash an id carries (48 bits: no two domains of one node meet by chance). */
    static final int ID_HEX = 12;

    /** A domain kind, written as its namespace label value. */
    public enum Kind {
        TENANT("t-"), POD("p-"), NODE("n-");

        private final String prefix;

        Kind(String prefix) { this.prefix = prefix; }

        /** The label value: {@code tenant}, {@code pod}, {@code node}. */
        public String label() { return name().toLowerCase(Locale.ROOT); }

        /** The kind a label value names, or empty. */
        public static Optional<Kind> parse(String value) {
            if (value == null) return Optional.empty();
            String v = value.strip().toLowerCase(Locale.ROOT);
            for (Kind k : values()) if (k.label().equals(v)) return Optional.of(k);
            return Optional.empty();
        }

        /** A kind from a flag or chart value, with a one-line error naming the values. */
        public static Kind parseOrThrow(String value, String what) {
            return parse(value).orElseThrow(() -> new IllegalArgumentException(what + " must be tenant, pod or node, not '" + value + "'"));
        }
    }

    /**
     * What a pod's domain is chosen from.
     *
     * @param clientUid the effective {@code runAsUser} of its GPU containers, when known
     */
    public record Member(String namespace, String podUid, OptionalLong clientUid, String node) {
        public Member {
            Objects.requireNonNull(namespace, "namespace");
            Objects.requireNonNull(podUid, "podUid");
            Objects.requireNonNull(clientUid, "clientUid");
            Objects.requireNonNull(node, "node");
        }
    }

    /**
     * A pod's domain, GPU aside: fixed for the pod's life (its containers keep the pipe directory they were answered).
     *
     * @param why how the kind was chosen, for logs, events and inspect
     */
    public record Choice(Kind kind, String key, String why) {
        public Choice {
            Objects.requireNonNull(kind, "kind");
            Objects.requireNonNull(key, "key");
            Objects.requireNonNull(why, "why");
        }

        /** Served by the colour's node daemon (every GPU), not by a domain daemon of its own GPU. */
        public boolean onNodeDaemon() { return kind == Kind.NODE; }

        /** The domain's id on the GPU {@code gpuUuid}. */
        public String id(String gpuUuid) { return onNodeDaemon() ? NODE_DAEMON : FaultDomains.id(kind, key, gpuUuid); }
    }

    /**
     * The kind a namespace's label asks, else the cluster default; {@code why} says which (and names a label value that
     * is not a kind: then the default applies).
     */
    public static Choice kindOf(String namespace, String labelValue, Kind clusterDefault) {
        Objects.requireNonNull(clusterDefault, "clusterDefault");
        if (labelValue == null) return new Choice(clusterDefault, "", "the cluster default (namespace " + namespace + " has no " + Names.LABEL_FAULT_DOMAIN + " label)");
        return Kind.parse(labelValue)
                .map(k -> new Choice(k, "", "namespace " + namespace + " is labelled " + Names.LABEL_FAULT_DOMAIN + "=" + k.label()))
                .orElseGet(() -> new Choice(clusterDefault, "", "the cluster default: namespace " + namespace + "'s label "
                        + Names.LABEL_FAULT_DOMAIN + "=" + labelValue + " is not tenant, pod or node"));
    }

    /**
     * The domain of a pod booked on {@code gpuCount} GPUs: the namespace's kind ({@link #kindOf}), {@code pod} kind for
     * a suspect, the node daemon for a pod of several GPUs; then the key of that kind.
     */
    public static Choice choose(Member pod, Choice namespaceKind, boolean suspect, int gpuCount) {
        if (gpuCount > 1)
            return new Choice(Kind.NODE, pod.node(), "booked on " + gpuCount + " GPUs: a domain's daemon serves one GPU and a container has one pipe directory");
        if (suspect && namespaceKind.kind() != Kind.POD)
            return new Choice(Kind.POD, pod.podUid(), "named a fault suspect: a domain of its own");
        Kind k = namespaceKind.kind();
        return new Choice(k, key(k, pod), namespaceKind.why());
    }

    /** The key of {@code kind} for the pod: namespace and client UID ({@code ?} when unknown), the pod's UID, or the node. */
    public static String key(Kind kind, Member pod) {
        return switch (kind) {
            case TENANT -> pod.namespace() + "/" + (pod.clientUid().isPresent() ? Long.toString(pod.clientUid().getAsLong()) : "?");
            case POD -> pod.podUid();
            case NODE -> pod.node();
        };
    }

    /** {@code t-}, {@code p-} or {@code n-} and {@value #ID_HEX} hex characters of SHA-256 over kind, key and GPU UUID. */
    public static String id(Kind kind, String key, String gpuUuid) {
        Objects.requireNonNull(gpuUuid, "gpuUuid");
        byte[] text = (kind.label() + "\n" + key + "\n" + gpuUuid).getBytes(StandardCharsets.UTF_8);
        try {
            byte[] hash = MessageDigest.getInstance("SHA-256").digest(text);
            return kind.prefix + HexFormat.of().formatHex(hash).substring(0, ID_HEX);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("the JDK has no SHA-256", e);
        }
    }
}
