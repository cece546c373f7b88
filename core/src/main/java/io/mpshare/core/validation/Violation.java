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
        NVIDIA_ENV,
        /**
         * A pod that asks the container runtime for GPUs by one of its other doors: a CDI annotation
         * ({@code cdi.k8s.io/*}) or a mount in the NVIDIA toolkit's device-list folder; in shared-GPU pods always, in
         * other pods outside the allow-listed namespaces.
         */
        RUNTIME_DEVICES,
        /** {@code mpshare.io/context-reserve-mib} not a whole number within the bounds. */
        CONTEXT_RESERVE,
        /** A container of a shared-GPU pod runs as root (strict namespaces): root can command the MPS daemon. */
        ROOT,
        /** A non-root container that may regain root through a setuid binary (strict namespaces). */
        PRIVILEGE_ESCALATION,
        /** hostPID, hostIPC or hostNetwork in a shared-GPU pod (strict namespaces). */
        HOST_NAMESPACE,
        /** A hostPath volume that reaches the MPS pipe directories, the kubelet's folder or the host's /proc. */
        HOST_PATH,
        /** A capability that reaches other UIDs, their files or the kernel ({@code SYS_ADMIN}, {@code SYS_PTRACE}, ...). */
        CAPABILITIES,
        /** {@code procMount: Unmasked}. */
        PROC_MOUNT,
        /**
         * A shared-GPU pod of a strict namespace that runs as another UID than the namespace's {@code mpshare.io/client-uid},
         * as a UID another namespace has claimed, or in a namespace whose annotation cannot be read.
         */
        CLIENT_UID,
        /** A shared-GPU pod created with spec.nodeName: it would bypass the extender's booking. */
        NODE_NAME,
        /** A shared-GPU pod for a scheduler that does not call mpshare's extender. */
        SCHEDULER;

        /** Rules a namespace labelled {@code mpshare.io/tenancy=trusted} turns into warnings. */
        public boolean trustedAdmits() { return this == ROOT || this == PRIVILEGE_ESCALATION || this == HOST_NAMESPACE; }
    }
}
