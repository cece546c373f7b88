package io.mpshare.deviceplugin.allocation;

import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * What Allocate grants one container, in the domain's words: its env (the isolation variables of
 * {@code core.isolation.MpsLimits} and informational ones), host paths mounted into it, and device nodes (none today:
 * the NVIDIA runtime adds the GPUs named by {@code NVIDIA_VISIBLE_DEVICES}). The kubelet adapter turns it into the
 * device plugin API's {@code ContainerAllocateResponse}.
 */
public record Grant(Map<String, String> env, List<Mount> mounts, List<Device> devices) {
    public Grant {
        env = Map.copyOf(env);
        mounts = List.copyOf(mounts);
        devices = List.copyOf(devices);
    }

    /** A host path bound into the container. */
    public record Mount(String hostPath, String containerPath, boolean readOnly) {
        public Mount {
            Objects.requireNonNull(hostPath, "hostPath");
            Objects.requireNonNull(containerPath, "containerPath");
        }
    }

    /** A device node made visible in the container, with cgroup permissions such as {@code rw}. */
    public record Device(String hostPath, String containerPath, String permissions) {
        public Device {
            Objects.requireNonNull(hostPath, "hostPath");
            Objects.requireNonNull(containerPath, "containerPath");
            Objects.requireNonNull(permissions, "permissions");
        }
    }
}
