package io.mpshare.deviceplugin.devices;

import io.mpshare.core.MemoryUnit;
import io.mpshare.core.Names;
import io.mpshare.core.model.Gpu;
import io.mpshare.core.model.NodeInventory;
import io.mpshare.deviceplugin.api.v1beta1.Device;
import io.mpshare.deviceplugin.api.v1beta1.ListAndWatchResponse;

import java.util.ArrayList;
import java.util.List;

/**
 * Builds the device lists kubelet sees. {@code aliyun.com/gpu-mem}: {@code floor(totalMiB / unit)} devices per GPU;
 * {@code aliyun.com/gpu-core.percentage}: 100 per GPU. Every device of a GPU carries that GPU's health.
 *
 * <p>Size: kubelet reads ListAndWatch with gRPC's default 4 MiB limit. One device costs about 62 bytes on the wire
 * (UUID-based ID + "Healthy"), so GiB units list 8 x 141 GiB in ~70 KB; MiB units would need ~71 MB for the same
 * node. {@link #checkSize} refuses a list above the configured budget with the numbers, instead of letting kubelet
 * drop the stream silently.
 */
public final class DeviceCatalog {
    public static final String HEALTHY = "Healthy";
    public static final String UNHEALTHY = "Unhealthy";
    public static final int CORE_UNITS_PER_GPU = 100;

    private DeviceCatalog() {}

    public static ListAndWatchResponse memory(NodeInventory inv, MemoryUnit unit, HealthState health) {
        var b = ListAndWatchResponse.newBuilder();
        for (Gpu g : inv.gpus()) add(b, g, (int) unit.fromMib(g.totalMib()), health);
        return b.build();
    }

    public static ListAndWatchResponse core(NodeInventory inv, HealthState health) {
        var b = ListAndWatchResponse.newBuilder();
        for (Gpu g : inv.gpus()) add(b, g, CORE_UNITS_PER_GPU, health);
        return b.build();
    }

    private static void add(ListAndWatchResponse.Builder b, Gpu g, int units, HealthState health) {
        String h = health.gpuHealthy(g.index()) && g.healthy() ? HEALTHY : UNHEALTHY;
        for (int n = 0; n < units; n++) b.addDevices(Device.newBuilder().setID(DeviceIds.id(g.uuid(), n)).setHealth(h));
    }

    /** Throws IllegalStateException naming the sizes when {@code list} is larger than {@code budgetBytes}. */
    public static void checkSize(String resource, MemoryUnit unit, ListAndWatchResponse list, int budgetBytes) {
        int size = list.getSerializedSize();
        if (size > budgetBytes)
            throw new IllegalStateException(resource + " in " + unit.symbol() + " units lists " + list.getDevicesCount()
                    + " devices, a " + size + "-byte ListAndWatch message; kubelet reads at most 4 MiB and mpshare keeps it under "
                    + budgetBytes + " bytes. Use GiB units (" + Names.FLAG_GPU_MEM_UNIT + " GiB) on this node.");
    }

    /** Device IDs of one GPU, for preferred allocations. */
    public static List<String> idsOf(String gpuUuid, List<String> ids) {
        var out = new ArrayList<String>();
        for (String id : ids) if (DeviceIds.gpuUuid(id).map(gpuUuid::equals).orElse(false)) out.add(id);
        return out;
    }
}
