package io.mpshare.deviceplugin.allocation;

import io.mpshare.core.MemoryUnit;
import io.mpshare.core.Names;
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

import java.util.List;
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

    /**
     * Prefers IDs of the GPU(s) the pod kubelet is admitting was booked on, with the booking's units on each, so that
     * kubelet records (checkpoint, pod-resources) the booked GPU. kubelet calls this ~25 ms after the bind, often before
     * the informer has the pod: then a bounded wait and a direct read ({@link AllocationManager#awaitTarget}).
     */
    @Override public PreferredAllocationResponse preferred(PreferredAllocationRequest request) { return preferred(request, true); }

    @Override public PreferredAllocationResponse tryPreferred(PreferredAllocationRequest request) { return preferred(request, false); }

    private PreferredAllocationResponse preferred(PreferredAllocationRequest request, boolean mayWait) {
        var out = PreferredAllocationResponse.newBuilder();
        for (ContainerPreferredAllocationRequest r : request.getContainerRequestsList()) {
            AllocationManager.Target t = manager.target(r.getAllocationSize());
            if (t instanceof AllocationManager.Target.Unknown) {
                if (!mayWait) return null;
                t = manager.awaitTarget(r.getAllocationSize());
            }
            List<String> gpus = t instanceof AllocationManager.Target.Placed p ? p.candidate().allocation().gpuUuids() : List.of();
            List<String> ids = Preference.pick(r, gpus);
            if (t instanceof AllocationManager.Target.Placed p) manager.preferred(ids, p);
            out.addContainerResponses(ContainerPreferredAllocationResponse.newBuilder().addAllDeviceIDs(ids));
        }
        return out.build();
    }

    /** kubelet sends one container a call: answer or refuse it on the spot when that is already known. */
    @Override public AllocateResponse tryAllocate(AllocateRequest request) throws AllocateRefused {
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
