/** In-memory {@link io.mpshare.nvml.Nvml} for tests of the code that reads GPUs: no native code. */
package io.mpshare.nvml.fake;
