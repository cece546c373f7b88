package io.mpshare.deviceplugin.allocation;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * What Allocate grants one container, in the domain's words: its env (the isolation variables of
 * {@code core.isolation.MpsLimits} and informational ones), host paths mounted into it, device nodes and CDI devices.
 * How the container reaches the GPU itself is the {@link GpuAccess} the device plugin runs with: the NVIDIA runtime
 * adds the GPUs named by {@code NVIDIA_VISIBLE_DEVICES} (no nodes or CDI devices here), or the grant names the device
 * nodes and binds the driver's files, or it names CDI devices the runtime injects. The kubelet adapter turns it into the
 * device plugin API's {@code ContainerAllocateResponse}.
 *
 * @param cdiDevices fully qualified CDI device names ({@code mpshare.io/gpu=GPU-...})
 */
public record Grant(Map<String, String> env, List<Mount> mounts, List<Device> devices, List<String> cdiDevices) {
    public Grant {
        env = Map.copyOf(env);
        mounts = List.copyOf(mounts);
        devices = List.copyOf(devices);
        cdiDevices = List.copyOf(cdiDevices);
    }

    /** A grant of env and mounts alone. */
    public Grant(Map<String, String> env, List<Mount> mounts) {
        this(env, mounts, List.of(), List.of());
    }

    /** This grant with more mounts, device nodes and CDI devices after its own. */
    public Grant plus(List<Mount> moreMounts, List<Device> moreDevices, List<String> moreCdiDevices) {
        return new Grant(env, concat(mounts, moreMounts), concat(devices, moreDevices), concat(cdiDevices, moreCdiDevices));
    }

    private static <T> List<T> concat(List<T> a, List<T> b) {
        var out = new ArrayList<T>(a);
        out.addAll(b);
        return out;
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
