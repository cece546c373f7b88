/** Device plugin benchmarks: Allocate latency through real gRPC on a unix socket ({@link io.mpshare.bench.deviceplugin.AllocateLatency}). */
package io.mpshare.bench.deviceplugin;
