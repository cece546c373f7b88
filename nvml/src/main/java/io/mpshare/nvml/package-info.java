/**
 * NVML, the part mpshare uses: the {@link io.mpshare.nvml.Nvml} interface, {@link io.mpshare.nvml.FfmNvml}
 * (java.lang.foreign over libnvidia-ml.so.1, the only class here that touches native memory) and
 * {@link io.mpshare.nvml.Xids} (which Xid errors make a GPU unhealthy). Fakes live in {@code io.mpshare.nvml.fake}.
 */
package io.mpshare.nvml;
