/**
 * Single-host mode ({@code mpshare host}): the same ledger, placement policy, MPS supervisor and policer as on
 * a Kubernetes node, in one foreground process for a GPU server without Kubernetes. {@link io.mpshare.host.HostService}
 * books jobs and keeps them durable; {@link io.mpshare.host.HostRuntime} wires the real NVML, daemon and policer;
 * {@link io.mpshare.host.JobRunner} is the client side of {@code mpshare run}.
 */
package io.mpshare.host;
