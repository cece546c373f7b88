/**
 * Allocate for {@code aliyun.com/gpu-mem}: which pod a container belongs to (kubelet does not say), what it is
 * answered, and the reconciliation that corrects the record afterwards from the pod-resources API.
 * {@link io.mpshare.deviceplugin.allocation.AllocationManager} holds the implementation notes.
 */
package io.mpshare.deviceplugin.allocation;
