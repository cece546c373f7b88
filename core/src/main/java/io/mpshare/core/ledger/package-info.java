/**
 * The ledger of GPU allocations and its lifecycle state machine ({@link io.mpshare.core.ledger.Phase}):
 * assume → bound → assigned → released, safe under concurrent filter and bind.
 */
package io.mpshare.core.ledger;
