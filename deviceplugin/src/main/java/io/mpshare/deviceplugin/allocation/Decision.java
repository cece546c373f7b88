package io.mpshare.deviceplugin.allocation;

/**
 * What Allocate decided for one container's device IDs. {@link AllocationManager#decide} never waits and may say
 * {@link Unknown} or {@link Waiting}; {@link AllocationManager#allocate} always ends in a {@link Final} one.
 */
public sealed interface Decision {
    /** An answer or a refusal: what kubelet is told. */
    sealed interface Final extends Decision {}

    /** The container is granted this. */
    record Answered(Grant grant) implements Final {}

    /** The call cannot be answered; the reason is for the pod's owner (kubelet puts it on the pod's events). */
    record Refused(String reason) implements Final {}

    /** No waiting pod can own the call: the informer may be behind. */
    record Unknown() implements Decision {}

    /**
     * The call is for {@code pod}, whose MPS daemon does not serve yet ({@code reason}): nothing is claimed; the call
     * waits for the daemon off kubelet's event loop, bounded, and is then answered or refused.
     */
    record Waiting(String pod, String reason) implements Decision {}
}
