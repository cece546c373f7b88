package io.mpshare.core.ledger;

/** Outcome of {@link Ledger#assume}: booked now, already booked the same way (idempotent), or refused with a reason. */
public sealed interface AssumeResult {
    record Assumed(Allocation allocation) implements AssumeResult {}
    record AlreadyPlaced(Allocation allocation) implements AssumeResult {}
    record Rejected(String reason) implements AssumeResult {}
}
