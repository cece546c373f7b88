package io.mpshare.policing;

import io.mpshare.core.ledger.Allocation;

import java.util.List;
import java.util.Set;

/**
 * What the policer needs to know about this node at each cycle; read once per cycle. The device plugin
 * backs it with its pod informer (decoded {@code mpshare.io/allocation}, pods on this node, not finished);
 * host mode with its job registry. Must be cheap and non-blocking.
 */
public interface NodeView {
    /** Pods with an allocation on this node; {@code Allocation.podUid()} must be set. */
    List<Allocation> allocations();

    /** Whether mpshare shares GPU {@code index} (processes on other GPUs are not judged). */
    default boolean shared(int index) { return true; }

    /**
     * Pods whose GPU processes are never judged (by UID): node agents that open a CUDA context for
     * monitoring, say. The device plugin fills it from a configured namespace or label; empty by default.
     */
    default Set<String> exemptPods() { return Set.of(); }

    /** Health the device plugin reports for GPU {@code index} (for metrics only). */
    default boolean healthy(int index) { return true; }
}
