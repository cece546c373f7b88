package io.mpshare.core.ledger;

/**
 * Lifecycle of one pod's allocation in the {@link Ledger}.
 *
 * <pre>
 *              assume()                confirmBound()              markAssigned()
 *   (none) ────────────▶ ASSUMED ───────────────────▶ BOUND ───────────────────▶ ASSIGNED
 *     ▲                    │  │                          │                          │
 *     │   release() or     │  │ expireAssumed(): older   │ release(): pod deleted,  │ release()
 *     └────────────────────┘  │ than the TTL and no      │ finished, or bind failed │
 *     └───────────────────────┘ longer wanted            ▼                          ▼
 *                                                      (none)                     (none)
 * </pre>
 *
 * ASSUMED: the extender chose GPUs and booked them before writing anything to the API server.
 * BOUND: the allocation annotation is on the pod and the Binding exists (bind confirmed).
 * ASSIGNED: the node's device plugin answered kubelet's Allocate for the pod.
 * Every transition is idempotent: repeating one leaves the ledger as it was.
 */
public enum Phase { ASSUMED, BOUND, ASSIGNED }
