package io.mpshare.mps;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;

import java.util.Locale;

/**
 * What one MPS fault domain holds, as the device plugin chose it (written {@code tenant}, {@code pod}, {@code node} on the
 * wire): the pods of one namespace and client UID on a GPU, one pod, or every pod on the GPU. The supervisor runs each
 * domain the same way; the kind is reported back and decides nothing here but how the thread share is read (the
 * device plugin books a {@code pod} domain's share as the pod's own, a {@code tenant} or {@code node} domain's as the
 * largest share booked in it).
 */
public enum DomainKind {
    TENANT, POD, NODE;

    @JsonValue public String id() { return name().toLowerCase(Locale.ROOT); }

    @JsonCreator public static DomainKind parse(String text) {
        if (text != null) {
            for (DomainKind k : values()) if (k.id().equals(text.strip().toLowerCase(Locale.ROOT))) return k;
        }
        throw new IllegalArgumentException("kind must be tenant, pod or node, not '" + text + "'");
    }
}
