/**
 * Preemption, pure: which pods to evict from a node so that a higher-priority pod fits there
 * ({@link io.mpshare.core.preempt.VictimSelection}), and the room held for pods nominated to a node until their
 * victims are gone ({@link io.mpshare.core.preempt.NominatedHold}). Both judge with a placement policy; neither
 * changes the ledger.
 */
package io.mpshare.core.preempt;
