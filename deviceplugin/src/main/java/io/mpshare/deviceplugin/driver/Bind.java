package io.mpshare.deviceplugin.driver;

import java.util.Objects;

/** A host file or folder of the driver bound read-only into a container at {@code containerPath}. */
public record Bind(String hostPath, String containerPath) {
    public Bind {
        Objects.requireNonNull(hostPath, "hostPath");
        Objects.requireNonNull(containerPath, "containerPath");
    }
}
