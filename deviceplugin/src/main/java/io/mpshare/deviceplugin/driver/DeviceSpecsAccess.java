package io.mpshare.deviceplugin.driver;

import io.mpshare.deviceplugin.allocation.GpuAccess;
import io.mpshare.deviceplugin.allocation.Grant;
import io.mpshare.deviceplugin.allocation.IdShape;

import java.util.List;

/**
 * The device-specs strategy: each container's grant names the device nodes of its GPUs and the control nodes, with
 * read-write access, and binds the driver's files read-only at their places under the container's root, so that any
 * CRI runtime gives it a usable GPU without NVIDIA's container toolkit.
 */
public final class DeviceSpecsAccess implements GpuAccess {
    static final String PERMISSIONS = "rw";
    private final DriverFiles driver;
    private final List<Grant.Mount> mounts;

    public DeviceSpecsAccess(DriverFiles driver) {
        this.driver = driver;
        this.mounts = driver.binds().stream().map(b -> new Grant.Mount(b.hostPath(), b.containerPath(), true)).toList();
    }

    @Override public Grant apply(Grant grant, IdShape gpus) {
        var devices = driver.nodesFor(gpus.gpuIndices()).stream()
                .map(n -> new Grant.Device(n.hostPath(), n.containerPath(), PERMISSIONS)).toList();
        return grant.plus(mounts, devices, List.of());
    }
}
