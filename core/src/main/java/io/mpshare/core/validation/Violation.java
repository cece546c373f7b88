package io.mpshare.core.validation;

import java.util.Objects;

/**
 * One broken admission rule. The message names the container and says what to change.
 *
 * @param rule      which rule (stable, for metrics and tests)
 * @param container the container at fault, or empty for pod-level rules
 */
public record Violation(Rule rule, String container, String message) {
    public Violation {
        Objects.requireNonNull(rule, "rule");
        container = container == null ? "" : container;
        Objects.requireNonNull(message, "message");
    }

    /** The admission rules, in the order they are checked. */
    public enum Rule {
        /** gpu-mem or gpu-core.percentage not a whole number, or not above zero. */
        AMOUNT,
        /** gpu-core.percentage above 100. */
        CORE_RANGE,
        /** aliyun.com/gpu-count not a positive integer, or not dividing a request. */
        GPU_COUNT,
        /** The requests together cannot be met on one GPU: core without memory, cores above 100% in sum. */
        DEMAND,
        /** More memory than the largest GPU in the cluster has. */
        TOO_LARGE,
        /** A privileged container in a shared-GPU pod: it would see every GPU. */
        PRIVILEGED,
        /** NVIDIA_VISIBLE_DEVICES or CUDA_MPS_* set by the user in a shared-GPU pod. */
        RESERVED_ENV,
        /** NVIDIA_VISIBLE_DEVICES in any pod outside the allow-listed namespaces. */
        NVIDIA_ENV
    }
}
