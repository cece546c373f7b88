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

    PreferredAllocationResponse preferred(PreferredAllocationRequest request);

    AllocateResponse allocate(AllocateRequest request) throws AllocateRefused;

    /**
     * The non-blocking fast path, run on the transport's event loop: an answer, or null when the call may have to
     * wait (then {@link #allocate} runs on a worker thread). Must not block and must not claim anything when it
     * returns null.
     */
    default AllocateResponse tryAllocate(AllocateRequest request) { return null; }

    /** Allocate cannot be answered; the message is for the pod's owner (kubelet puts it on the pod's events). */
    final class AllocateRefused extends Exception {
        public AllocateRefused(String message) { super(message, null, false, false); }
    }
}
