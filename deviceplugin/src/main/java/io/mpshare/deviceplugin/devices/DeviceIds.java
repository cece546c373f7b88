package io.mpshare.deviceplugin.devices;

import java.util.Optional;

/**
 * Fake device IDs: {@code <gpu-uuid>-_-<n>}, n counting from 0 on each GPU. The separator cannot occur in an
 * NVML UUID, so the GPU is recovered from any ID kubelet hands back (Allocate, pod-resources).
 */
public final class DeviceIds {
    public static final String SEPARATOR = "-_-";

    private DeviceIds() {}

    public static String id(String gpuUuid, int n) { return gpuUuid + SEPARATOR + n; }

    /** The GPU UUID an ID names, or empty for an ID that is not ours. */
    public static Optional<String> gpuUuid(String id) {
        int at = id.lastIndexOf(SEPARATOR);
        return at <= 0 ? Optional.empty() : Optional.of(id.substring(0, at));
    }
}
