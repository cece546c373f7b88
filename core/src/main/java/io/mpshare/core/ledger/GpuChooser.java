package io.mpshare.core.ledger;

import io.mpshare.core.model.GpuDemand;

/**
 * What the ledger asks when it books a pod on a node, under that node's entry (so the answer and the booking are one
 * atomic step): which of the node's GPUs the demand takes, or why it cannot. Placement policies are choosers; the
 * ledger knows nothing else of them.
 */
@FunctionalInterface
public interface GpuChooser {
    Choice choose(NodeState node, GpuDemand demand);

    /** The chooser's answer for one demand on one node. */
    sealed interface Choice {
        /** @param positions positions in the node's GPU list (ascending NVML index order) the demand takes */
        record Chosen(int[] positions) implements Choice {}

        /** @param reason why the node cannot take the demand now, for the person who reads it */
        record Refused(String reason) implements Choice {}
    }
}
