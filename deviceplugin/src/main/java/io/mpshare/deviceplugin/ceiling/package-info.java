/**
 * Layer 2 of the isolation in cluster mode: a hard server-side ceiling per GPU on every MPS daemon of the node.
 * {@link io.mpshare.core.isolation.MpsLimits#ceilingPerGpu} (pure, in core) turns this node's bookings into one ceiling
 * per GPU: the largest per-process cap booked there, rounded up to whole GiB, or 1 GiB where nothing is booked;
 * {@link io.mpshare.deviceplugin.ceiling.CeilingController} keeps each colour's supervisor in step with it over the
 * supervisor's unix socket, live (no daemon restart). A client that raises its own {@code CUDA_MPS_PINNED_DEVICE_MEM_LIMIT}
 * gets no more than the ceiling (FACTS.md).
 */
package io.mpshare.deviceplugin.ceiling;
