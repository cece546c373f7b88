/**
 * The real-node tier: a real kubelet (v1.31.14) on containerd 1.6 joined to the real control plane of {@code e2e/k8s},
 * with {@code mpshare mps-control} over the project's fake control binary and {@code mpshare device-plugin
 * --fake-gpus}. Images are made here from host binaries; the tier saves and restores what kubelet changes on the
 * machine and leaves nothing running. It skips with one line where it cannot run (not root, no containerd or
 * kubelet) and runs under CI.
 */
package io.mpshare.e2e.node;
