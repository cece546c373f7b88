package io.mpshare.deviceplugin.allocation;

import java.time.Duration;
import java.util.Objects;

/**
 * What {@link AllocationManager} calls out to, given at construction: the wiring that would otherwise make the manager
 * and the {@link Reconciler} need each other (both take the {@link AllocationBook} instead, and these hooks name the
 * reconciler's passes).
 *
 * @param afterAllocate  run after each answered container (production: a reconcile pass soon)
 * @param fallback       a direct read of the node's pods (and a reconcile first), when no waiting pod can own a call
 * @param fallbackBudget how long each direct read may take
 */
public record AllocateHooks(Runnable afterAllocate, Fallback fallback, Duration fallbackBudget) {
    /** How long a direct read may take by default. */
    public static final Duration FALLBACK_BUDGET = Duration.ofSeconds(1);

    /** Nothing after an answer, no direct read. */
    public static final AllocateHooks NONE = new AllocateHooks(() -> {}, budget -> {}, FALLBACK_BUDGET);

    public AllocateHooks {
        Objects.requireNonNull(afterAllocate, "afterAllocate");
        Objects.requireNonNull(fallback, "fallback");
        Objects.requireNonNull(fallbackBudget, "fallbackBudget");
    }

    /** A direct read of the node's pods (and a reconcile from pod-resources), bounded by {@code budget}. */
    public interface Fallback { void refresh(Duration budget); }
}
