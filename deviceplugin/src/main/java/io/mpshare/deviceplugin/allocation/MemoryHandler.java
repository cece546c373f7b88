package io.mpshare.deviceplugin.allocation;

import io.mpshare.core.MemoryUnit;
import io.mpshare.core.Names;
import io.mpshare.core.ledger.Allocation;
import io.mpshare.core.model.NodeInventory;
import io.mpshare.deviceplugin.api.v1beta1.AllocateRequest;
import io.mpshare.deviceplugin.api.v1beta1.AllocateResponse;
import io.mpshare.deviceplugin.api.v1beta1.ContainerAllocateRequest;
import io.mpshare.deviceplugin.api.v1beta1.ContainerPreferredAllocationRequest;
import io.mpshare.deviceplugin.api.v1beta1.ContainerPreferredAllocationResponse;
import io.mpshare.deviceplugin.api.v1beta1.ListAndWatchResponse;
import io.mpshare.deviceplugin.api.v1beta1.PreferredAllocationRequest;
import io.mpshare.deviceplugin.api.v1beta1.PreferredAllocationResponse;
import io.mpshare.deviceplugin.devices.DeviceCatalog;
import io.mpshare.deviceplugin.devices.HealthState;
import io.mpshare.deviceplugin.kubelet.ResourceHandler;

import java.util.Optional;
import java.util.function.Supplier;

/** {@code aliyun.com/gpu-mem}: device list from inventory and health; Allocate through the {@link AllocationManager}. */
public final class MemoryHandler implements ResourceHandler {
    private final NodeInventory hardware;
    private final MemoryUnit unit;
    private final Supplier<HealthState> health;
    private final AllocationManager manager;
    private volatile ListAndWatchResponse cached;
    private volatile HealthState cachedFor;

    public MemoryHandler(NodeInventory hardware, MemoryUnit unit, Supplier<HealthState> health, AllocationManager manager) {
        this.hardware = hardware;
        this.unit = unit;
        this.health = health;
        this.manager = manager;
    }

    @Override public String resourceName() { return Names.RESOURCE_GPU_MEM; }

    @Override public ListAndWatchResponse devices() {
        HealthState h = health.get();
        if (!h.equals(cachedFor)) {
            cached = DeviceCatalog.memory(hardware, unit, h);
            cachedFor = h;
        }
        return cached;
    }

    /** Prefers IDs of the GPUs the pod that Allocate will match was placed on, so pod-resources shows the real GPU. */
    @Override public PreferredAllocationResponse preferred(PreferredAllocationRequest request) {
        var out = PreferredAllocationResponse.newBuilder();
        for (ContainerPreferredAllocationRequest r : request.getContainerRequestsList()) {
            Optional<Allocation> next = manager.peek(r.getAllocationSize());
            out.addContainerResponses(ContainerPreferredAllocationResponse.newBuilder()
                    .addAllDeviceIDs(Preference.pick(r, next.map(Allocation::gpuUuids).orElse(java.util.List.of()))));
        }
        return out.build();
    }

    /** kubelet sends one container a call: answer it on the spot when a pod is already waiting for it. */
    @Override public AllocateResponse tryAllocate(AllocateRequest request) {
        if (request.getContainerRequestsCount() != 1) return null;
        return manager.tryAllocate(request.getContainerRequests(0).getDevicesIdsList())
                .map(r -> AllocateResponse.newBuilder().addContainerResponses(r).build()).orElse(null);
    }

    @Override public AllocateResponse allocate(AllocateRequest request) throws AllocateRefused {
        var out = AllocateResponse.newBuilder();
        for (ContainerAllocateRequest c : request.getContainerRequestsList()) out.addContainerResponses(manager.allocate(c.getDevicesIdsList()));
        return out.build();
    }
}
