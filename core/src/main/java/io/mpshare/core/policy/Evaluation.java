package io.mpshare.core.policy;

/**
 * What a policy says about one pod on one node. Maps straight onto the extender's answer:
 * {@code Fits} → kept (and scored), {@code Unfit} → {@code FailedNodes} (may fit later),
 * {@code Unresolvable} → {@code FailedAndUnresolvableNodes} (never fits this node as it is built).
 */
public sealed interface Evaluation {
    /**
     * @param positions positions in the node's GPU list (ascending NVML index order) the pod would get
     * @param score     higher is better; comparable only between evaluations of one policy and one pod
     */
    record Fits(int[] positions, long score) implements Evaluation {}

    record Unfit(String reason) implements Evaluation {}

    record Unresolvable(String reason) implements Evaluation {}
}
