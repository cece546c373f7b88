package io.mpshare.deviceplugin.driver;

import io.mpshare.deviceplugin.allocation.GpuAccess;
import io.mpshare.deviceplugin.allocation.Grant;
import io.mpshare.deviceplugin.allocation.IdShape;

import java.util.List;

/**
 * The cdi strategy: each container's grant names its GPUs as devices of the spec the plugin wrote at start
 * ({@link CdiSpec}); kubelet passes them to the runtime, which injects the nodes and the driver's files.
 */
public final class CdiAccess implements GpuAccess {
    @Override public Grant apply(Grant grant, IdShape gpus) {
        return grant.plus(List.of(), List.of(), gpus.gpuUuids().stream().map(CdiSpec::deviceName).toList());
    }
}
