package io.mpshare.core.policy;

import io.mpshare.core.ledger.NodeState;
import io.mpshare.core.model.GpuDemand;

/**
 * Chooses GPUs for a demand on one node and scores the node. Implementations are pure functions of
 * the snapshot: the extender's filter, prioritize and bind and the simulator all call the same one.
 */
public interface PlacementPolicy {
    String name();

    Evaluation evaluate(NodeState node, GpuDemand demand);
}
