package io.mpshare.deviceplugin.driver;

import java.util.Objects;

/** An NVIDIA device node: where it is on the host and where a container sees it ({@code /dev/nvidia0}). */
public record DeviceNode(String hostPath, String containerPath) {
    public DeviceNode {
        Objects.requireNonNull(hostPath, "hostPath");
        Objects.requireNonNull(containerPath, "containerPath");
    }
}
