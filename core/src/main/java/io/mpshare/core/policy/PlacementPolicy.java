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

    /** What {@link #score} answers when the demand does not fit. */
    long NO_FIT = Long.MIN_VALUE;

    /**
     * The score {@link #evaluate} would give when the demand fits, else {@link #NO_FIT}. Filter and
     * prioritize call this over thousands of nodes; implementations answer it without building reasons
     * or allocating, and must agree with {@code evaluate}.
     */
    default long score(NodeState node, GpuDemand demand) {
        return evaluate(node, demand) instanceof Evaluation.Fits f ? f.score() : NO_FIT;
    }

    /** Whether {@link #evaluate} would answer Fits; the filter's question, answered as cheaply as the policy can. */
    default boolean fits(NodeState node, GpuDemand demand) {
        return score(node, demand) != NO_FIT;
    }

    /**
     * True when, for {@code demand}, {@link #fits} is exactly "the node has at least {@code gpuCount} GPUs that
     * can take the demand now" (what {@link Fitting#candidates} counts): then the filter answers from the
     * ledger's {@link io.mpshare.core.ledger.FitIndex} without reading snapshots. False (the default) makes the
     * engine ask {@link #fits} on every node.
     */
    default boolean fitsByRoom(GpuDemand demand) { return false; }
}
