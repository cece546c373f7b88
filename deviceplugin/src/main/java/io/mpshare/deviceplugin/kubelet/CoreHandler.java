package io.mpshare.deviceplugin.kubelet;

import io.mpshare.core.Names;
import io.mpshare.core.model.NodeInventory;
import io.mpshare.deviceplugin.allocation.Preference;
import io.mpshare.deviceplugin.api.v1beta1.AllocateRequest;
import io.mpshare.deviceplugin.api.v1beta1.AllocateResponse;
import io.mpshare.deviceplugin.api.v1beta1.ContainerAllocateResponse;
import io.mpshare.deviceplugin.api.v1beta1.ContainerPreferredAllocationRequest;
import io.mpshare.deviceplugin.api.v1beta1.ContainerPreferredAllocationResponse;
import io.mpshare.deviceplugin.api.v1beta1.ListAndWatchResponse;
import io.mpshare.deviceplugin.api.v1beta1.PreferredAllocationRequest;
import io.mpshare.deviceplugin.api.v1beta1.PreferredAllocationResponse;
import io.mpshare.deviceplugin.devices.DeviceCatalog;
import io.mpshare.deviceplugin.devices.HealthState;

import java.util.List;
import java.util.function.Supplier;

/**
 * {@code aliyun.com/gpu-core.percentage}: 100 devices per GPU, so kubelet and kube-scheduler count core shares.
 * Allocate answers nothing of its own: a container asking cores also asks memory (admission rule), and the
 * {@code gpu-mem} answer carries {@code CUDA_MPS_ACTIVE_THREAD_PERCENTAGE} from the pod's allocation.
 */
public final class CoreHandler implements ResourceHandler {
    private final NodeInventory hardware;
    private final Supplier<HealthState> health;

    public CoreHandler(NodeInventory hardware, Supplier<HealthState> health) {
        this.hardware = hardware;
        this.health = health;
    }

    @Override public String resourceName() { return Names.RESOURCE_GPU_CORE; }

    @Override public ListAndWatchResponse devices() { return DeviceCatalog.core(hardware, health.get()); }

    @Override public PreferredAllocationResponse preferred(PreferredAllocationRequest request) {
        var out = PreferredAllocationResponse.newBuilder();
        for (ContainerPreferredAllocationRequest r : request.getContainerRequestsList())
            out.addContainerResponses(ContainerPreferredAllocationResponse.newBuilder().addAllDeviceIDs(Preference.pick(r.getAvailableDeviceIDsList(), r.getMustIncludeDeviceIDsList(), r.getAllocationSize(), List.of())));
        return out.build();
    }

    @Override public AllocateResponse tryAllocate(AllocateRequest request) { return allocate(request); }

    @Override public AllocateResponse allocate(AllocateRequest request) {
        var out = AllocateResponse.newBuilder();
        for (int i = 0; i < request.getContainerRequestsCount(); i++) out.addContainerResponses(ContainerAllocateResponse.getDefaultInstance());
        return out.build();
    }
}
