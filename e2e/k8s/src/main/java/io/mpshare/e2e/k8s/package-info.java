/**
 * A real Kubernetes control plane for tests and {@code bin/dev-cluster}: etcd, kube-apiserver, kube-controller-manager
 * and kube-scheduler as local processes on loopback, the chart's RBAC and scheduler configuration applied, fake GPU
 * nodes, and the real {@code mpshare scheduler-extender} / {@code mpshare webhook} as subprocesses.
 * {@link io.mpshare.e2e.k8s.ControlPlane} is the entry point; {@link io.mpshare.e2e.k8s.Binaries} finds the binaries.
 */
package io.mpshare.e2e.k8s;
