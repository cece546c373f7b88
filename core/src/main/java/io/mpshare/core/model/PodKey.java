package io.mpshare.core.model;

import java.util.Objects;

/** namespace/name of a pod: the ledger's key. */
public record PodKey(String namespace, String name) implements Comparable<PodKey> {
    public PodKey {
        Objects.requireNonNull(namespace, "namespace");
        Objects.requireNonNull(name, "name");
        if (name.isBlank()) throw new IllegalArgumentException("pod name is blank");
        if (namespace.isBlank()) namespace = "default";
    }

    public static PodKey of(String namespace, String name) { return new PodKey(namespace, name); }

    @Override public int compareTo(PodKey o) {
        int c = namespace.compareTo(o.namespace);
        return c != 0 ? c : name.compareTo(o.name);
    }

    @Override public String toString() { return namespace + "/" + name; }
}
