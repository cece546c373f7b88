/**
 * Device plugin benchmarks: Allocate latency through real gRPC on a unix socket ({@link io.mpshare.bench.deviceplugin.AllocateLatency});
 * kubelet's probe on the agent's port under stalled clients ({@link io.mpshare.bench.deviceplugin.SlowClients}).
 */
package io.mpshare.bench.deviceplugin;
