package io.mpshare.deviceplugin.kubelet;

import io.mpshare.core.MemoryUnit;
import io.mpshare.core.Names;
import io.mpshare.core.model.NodeInventory;
import io.mpshare.deviceplugin.allocation.AllocationManager;
import io.mpshare.deviceplugin.allocation.Decision;
import io.mpshare.deviceplugin.allocation.Grant;
import io.mpshare.deviceplugin.api.v1beta1.AllocateRequest;
import io.mpshare.deviceplugin.api.v1beta1.AllocateResponse;
import io.mpshare.deviceplugin.api.v1beta1.CDIDevice;
import io.mpshare.deviceplugin.api.v1beta1.ContainerAllocateRequest;
import io.mpshare.deviceplugin.api.v1beta1.ContainerAllocateResponse;
import io.mpshare.deviceplugin.api.v1beta1.ContainerPreferredAllocationRequest;
import io.mpshare.deviceplugin.api.v1beta1.ContainerPreferredAllocationResponse;
import io.mpshare.deviceplugin.api.v1beta1.DeviceSpec;
import io.mpshare.deviceplugin.api.v1beta1.ListAndWatchResponse;
import io.mpshare.deviceplugin.api.v1beta1.Mount;
import io.mpshare.deviceplugin.api.v1beta1.PreferredAllocationRequest;
import io.mpshare.deviceplugin.api.v1beta1.PreferredAllocationResponse;
import io.mpshare.deviceplugin.devices.DeviceCatalog;
import io.mpshare.deviceplugin.devices.HealthState;

import java.util.List;
import java.util.function.Supplier;

/**
 * {@code aliyun.com/gpu-mem}: device list from inventory and health; GetPreferredAllocation and Allocate decided by the
 * {@link AllocationManager} in domain terms, turned here into the device plugin API's messages: a {@link Grant} into a
 * {@code ContainerAllocateResponse} ({@link #response}), a refusal into {@link AllocateRefused} (the server's
 * FAILED_PRECONDITION status).
 */
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
            List<String> ids = manager.prefer(t, r.getAvailableDeviceIDsList(), r.getMustIncludeDeviceIDsList(), r.getAllocationSize());
            out.addContainerResponses(ContainerPreferredAllocationResponse.newBuilder().addAllDeviceIDs(ids));
        }
        return out.build();
    }

    /** kubelet sends one container a call: answer or refuse it on the spot when that is already known. */
    @Override public AllocateResponse tryAllocate(AllocateRequest request) throws AllocateRefused {
        if (request.getContainerRequestsCount() != 1) return null;
        return switch (manager.decide(request.getContainerRequests(0).getDevicesIdsList())) {
            case Decision.Answered a -> AllocateResponse.newBuilder().addContainerResponses(response(a.grant())).build();
            case Decision.Refused r -> throw new AllocateRefused(r.reason());
            case Decision.Unknown u -> null;
        };
    }

    @Override public AllocateResponse allocate(AllocateRequest request) throws AllocateRefused {
        var out = AllocateResponse.newBuilder();
        for (ContainerAllocateRequest c : request.getContainerRequestsList()) {
            switch (manager.allocate(c.getDevicesIdsList())) {
                case Decision.Answered a -> out.addContainerResponses(response(a.grant()));
                case Decision.Refused r -> throw new AllocateRefused(r.reason());
            }
        }
        return out.build();
    }

    /** The device plugin API's form of a grant. */
    public static ContainerAllocateResponse response(Grant g) {
        var r = ContainerAllocateResponse.newBuilder().putAllEnvs(g.env());
        for (Grant.Mount m : g.mounts())
            r.addMounts(Mount.newBuilder().setHostPath(m.hostPath()).setContainerPath(m.containerPath()).setReadOnly(m.readOnly()));
        for (Grant.Device d : g.devices())
            r.addDevices(DeviceSpec.newBuilder().setHostPath(d.hostPath()).setContainerPath(d.containerPath()).setPermissions(d.permissions()));
        for (String name : g.cdiDevices()) r.addCdiDevices(CDIDevice.newBuilder().setName(name));
        return r.build();
    }
}
