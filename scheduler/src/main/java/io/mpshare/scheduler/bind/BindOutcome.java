package io.mpshare.scheduler.bind;

import io.mpshare.core.ledger.Allocation;

/** What a bind came to. {@code reason} of a failure is a short metric label; {@code message} is for the person. */
public sealed interface BindOutcome {
    /** Bound now, or found already bound to the asked node ({@code already}); allocation null for a pod without GPU demand. */
    record Bound(Allocation allocation, boolean already) implements BindOutcome {}

    record Failed(String reason, String message) implements BindOutcome {}
}
