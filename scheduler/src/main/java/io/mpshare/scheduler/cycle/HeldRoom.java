package io.mpshare.scheduler.cycle;

/**
 * Room on a node that belongs to another pod than the one asking, though the ledger shows it free: kube-scheduler's
 * nominated pods, whose victims preemption is deleting, hold it against pods of equal or lower priority. Filter,
 * prioritize and bind each ask before they let a pod have a node.
 */
public interface HeldRoom {
    /** True while anything is held anywhere: the common answer, so callers skip the per-node question. */
    boolean active();

    /** Why {@code ask} may not have {@code node} now, or null when it may. */
    String refusal(Ask.Gpu ask, String node);

    /** Nothing held (tests and tools without preemption). */
    HeldRoom NONE = new HeldRoom() {
        @Override public boolean active() { return false; }
        @Override public String refusal(Ask.Gpu ask, String node) { return null; }
    };
}
