package io.mpshare.core.ledger;

/**
 * Told when a node's room may have grown: a booking left it or shrank, the node was added, or its inventory changed
 * (a GPU back to healthy, a GPU more). Called after the ledger has published the node's new snapshot, on the thread
 * that changed it and while that thread still holds the booked pod's entry: keep it short and never block.
 */
@FunctionalInterface
public interface RoomListener {
    void roomGrew(String node);

    RoomListener NONE = node -> { };
}
