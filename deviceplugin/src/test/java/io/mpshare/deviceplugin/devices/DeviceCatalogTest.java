package io.mpshare.deviceplugin.devices;

import io.mpshare.core.MemoryUnit;
import io.mpshare.core.Names;
import io.mpshare.core.model.Gpu;
import io.mpshare.core.model.NodeInventory;
import io.mpshare.deviceplugin.api.v1beta1.Device;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class DeviceCatalogTest {
    static final long H200_MIB = 143_771;
    static final int BUDGET = 2 << 20;

    /** GPUs with UUIDs of the real length (GPU- + 36 characters). */
    static NodeInventory node(int gpus, long mib) {
        var list = new ArrayList<Gpu>();
        for (int i = 0; i < gpus; i++) list.add(new Gpu(i, String.format("GPU-8c1f2a3b-%04d-4e5f-9a0b-1c2d3e4f5a6b", i), "NVIDIA H200", mib, true));
        return new NodeInventory("n1", list);
    }

    @Test void memory_gibUnitsEightH200_farBelowFourMiB() {
        var list = DeviceCatalog.memory(node(8, H200_MIB), MemoryUnit.GIB, HealthState.healthy());
        assertThat(list.getDevicesCount()).isEqualTo(8 * 140);
        int size = list.getSerializedSize();
        assertThat(size).isLessThan(100_000);
        DeviceCatalog.checkSize(Names.RESOURCE_GPU_MEM, MemoryUnit.GIB, list, BUDGET);
    }

    @Test void memory_mibUnitsEightH200_refusedWithTheNumbers() {
        var list = DeviceCatalog.memory(node(8, H200_MIB), MemoryUnit.MIB, HealthState.healthy());
        int size = list.getSerializedSize();
        assertThat(size).isGreaterThan(4 << 20);
        assertThatThrownBy(() -> DeviceCatalog.checkSize(Names.RESOURCE_GPU_MEM, MemoryUnit.MIB, list, BUDGET))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("1150168 devices").hasMessageContaining("Use GiB units (--gpu-mem-unit GiB)");
    }

    @Test void memory_mibUnitsOneSixteenGiBGpu_fits() {
        var list = DeviceCatalog.memory(node(1, 16_384), MemoryUnit.MIB, HealthState.healthy());
        assertThat(list.getDevicesCount()).isEqualTo(16_384);
        assertThat(list.getSerializedSize()).isBetween(BUDGET / 4, BUDGET);
        assertThatCode(() -> DeviceCatalog.checkSize(Names.RESOURCE_GPU_MEM, MemoryUnit.MIB, list, BUDGET)).doesNotThrowAnyException();
    }

    @Test void core_hundredPerGpu() {
        var list = DeviceCatalog.core(node(8, H200_MIB), HealthState.healthy());
        assertThat(list.getDevicesCount()).isEqualTo(800);
    }

    @Test void memory_daemonDown_everyDeviceUnhealthy() {
        var list = DeviceCatalog.memory(node(2, H200_MIB), MemoryUnit.GIB, new HealthState(false, Set.of(), "down"));
        assertThat(list.getDevicesList()).extracting(Device::getHealth).containsOnly(DeviceCatalog.UNHEALTHY);
    }

    @Test void memory_xidOnOneGpu_onlyItsDevicesUnhealthy() {
        NodeInventory inv = node(2, H200_MIB);
        var list = DeviceCatalog.memory(inv, MemoryUnit.GIB, new HealthState(true, Set.of(1), "xid"));
        for (Device d : list.getDevicesList()) {
            boolean onOne = d.getID().startsWith(inv.gpu(1).uuid());
            assertThat(d.getHealth()).isEqualTo(onOne ? DeviceCatalog.UNHEALTHY : DeviceCatalog.HEALTHY);
        }
    }

    @Test void deviceIds_encodeTheGpu() {
        String id = DeviceIds.id("GPU-abc-def", 41);
        assertThat(id).isEqualTo("GPU-abc-def-_-41");
        assertThat(DeviceIds.gpuUuid(id)).contains("GPU-abc-def");
        assertThat(DeviceIds.gpuUuid("nvidia0")).isEmpty();
    }
}
