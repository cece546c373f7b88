package io.mpshare.core.policy;

import io.mpshare.core.ledger.FitIndex;
import io.mpshare.core.ledger.GpuChooser;
import io.mpshare.core.ledger.NodeState;
import io.mpshare.core.model.GpuDemand;
import io.mpshare.core.model.PodKey;

/**
 * Chooses GPUs for a demand on one node and scores the node. Implementations are pure functions of
 * the snapshot: the extender's filter, prioritize and bind and the simulator all call the same one. The ledger
 * books with a policy as its {@link GpuChooser}: the GPUs {@link #evaluate} picks, or its reason.
 */
public interface PlacementPolicy extends GpuChooser {
    String name();

    Evaluation evaluate(NodeState node, GpuDemand demand);

    /** {@link #evaluate} as the ledger asks it: the GPUs of a fit, else the reason (unfit and unresolvable alike). */
    @Override default Choice choose(NodeState node, GpuDemand demand) {
        return switch (evaluate(node, demand)) {
            case Evaluation.Fits f -> new Choice.Chosen(f.positions());
            case Evaluation.Unfit u -> new Choice.Refused(u.reason());
            case Evaluation.Unresolvable u -> new Choice.Refused(u.reason());
        };
    }

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
     * ledger's {@link FitIndex} without reading snapshots. False (the default) makes the
     * engine ask {@link #fits} on every node.
     */
    default boolean fitsByRoom(GpuDemand demand) { return false; }

    /**
     * True when, for {@code demand}, {@link #fits} is exactly "{@link #fitsByRoom}'s room, and
     * {@link Fitting#uidConflict} finds no conflict" (the one-UID-per-daemon rule), and {@link #evaluate} on a node
     * with that room but a conflict answers {@code Unfit(Fitting.uidConflict(node, demand))}: then the filter answers
     * a pod of known UID from the {@link FitIndex} too, which keeps each node's UIDs in summary.
     */
    default boolean fitsByRoomUnderUidRule(GpuDemand demand) { return false; }

    /**
     * This policy as applied to one pod: a policy that also weighs what the pod asks of the host (its CPU and
     * memory request against the node's free CPU and memory) answers a view bound to that pod; the others
     * answer themselves (the default). {@link PlacementEngine}'s prioritize and assume go through it, so bind
     * books what prioritize scored.
     */
    default PlacementPolicy forPod(PodKey pod) { return this; }

    /**
     * A value naming every input of {@link #score} for {@code demand} other than the node's snapshot and what
     * {@link FitIndex#touch} stands for, so that {@link PlacementEngine} may give back a node's score while the node's
     * version ({@link FitIndex.View#version}) stays: equal keys must mean equal scores on equal versions. Null (the
     * default) remembers nothing. A policy that reads node inputs outside the snapshot answers a key only when every
     * change of those inputs touches the node in the index.
     */
    default Object scoreKey(GpuDemand demand) { return null; }
}
