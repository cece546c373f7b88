package io.mpshare.deviceplugin.kubelet;

import io.mpshare.deviceplugin.api.v1beta1.AllocateRequest;
import io.mpshare.deviceplugin.api.v1beta1.AllocateResponse;
import io.mpshare.deviceplugin.api.v1beta1.ListAndWatchResponse;
import io.mpshare.deviceplugin.api.v1beta1.PreferredAllocationRequest;
import io.mpshare.deviceplugin.api.v1beta1.PreferredAllocationResponse;

/**
 * What one extended resource does behind the device plugin API. Allocate failures are thrown as
 * {@link AllocateRefused}; the server turns them into a gRPC FAILED_PRECONDITION status kubelet shows the user.
 */
public interface ResourceHandler {
    String resourceName();

    /** The full device list as of now. */
    ListAndWatchResponse devices();

    /** May block briefly (a bounded wait for the pod informer); runs off the transport's event loop. */
    PreferredAllocationResponse preferred(PreferredAllocationRequest request);

    /** The non-blocking form of {@link #preferred}, on the event loop: an answer, or null when it may have to wait. */
    default PreferredAllocationResponse tryPreferred(PreferredAllocationRequest request) { return preferred(request); }

    AllocateResponse allocate(AllocateRequest request) throws AllocateRefused;

    /**
     * The non-blocking fast path, run on the transport's event loop: an answer, a refusal already known (thrown at
     * once: kubelet admits pods on its sync loop, so a refusal must not wait), or null when the call may need a direct
     * read (then {@link #allocate} runs on a worker thread). Must not block and must not claim anything when it
     * returns null.
     */
    default AllocateResponse tryAllocate(AllocateRequest request) throws AllocateRefused { return null; }

    /** Allocate cannot be answered; the message is for the pod's owner (kubelet puts it on the pod's events). */
    final class AllocateRefused extends Exception {
        public AllocateRefused(String message) { super(message, null, false, false); }
    }
}
