/**
 * Allocate for {@code aliyun.com/gpu-mem}: the answer built from the device IDs kubelet chose ({@code IdShape}), which
 * pod kubelet is admitting (kubelet does not say), refusals of pods the extender did not place, and the
 * reconciliation that corrects the record afterwards from the pod-resources API. Decided in domain types: a
 * {@link io.mpshare.deviceplugin.allocation.Decision} (a {@link io.mpshare.deviceplugin.allocation.Grant} or a refusal),
 * never a kubelet, gRPC or protobuf type; the {@code kubelet} package converts.
 * {@link io.mpshare.deviceplugin.allocation.AllocationManager} holds the implementation notes.
 */
package io.mpshare.deviceplugin.allocation;
