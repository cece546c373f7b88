package io.mpshare.deviceplugin.driver;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.mpshare.deviceplugin.allocation.GpuAccess;
import io.mpshare.deviceplugin.allocation.Grant;
import io.mpshare.deviceplugin.allocation.IdShape;
import io.mpshare.deviceplugin.cluster.InventoryPublisher;
import io.mpshare.deviceplugin.kubelet.MemoryHandler;
import io.mpshare.nvml.fake.FakeNvml;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static io.mpshare.deviceplugin.driver.DriverTrees.V;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class DeviceListsTest {
    private final FakeNvml nvml = new FakeNvml().addDevice("GPU-a", "NVIDIA H200", 143_771).addDevice("GPU-b", "NVIDIA H200", 143_771);
    /** Today's answer for a container on GPU 1: the MPS env and the pipe directory, read-only. */
    private static final Grant MPS = new Grant(Map.of("CUDA_MPS_PIPE_DIRECTORY", "/run/mpshare/blue/pipe", "CUDA_MPS_PINNED_DEVICE_MEM_LIMIT", "0=8192M",
            "NVIDIA_VISIBLE_DEVICES", "GPU-b"), List.of(new Grant.Mount("/run/mpshare/blue/pipe", "/run/mpshare/blue/pipe", true)));
    private static final IdShape GPU_1 = new IdShape(List.of(1), List.of("GPU-b"), List.of(7L));

    private static Path driver(Path root) throws IOException {
        new DriverTrees(root).library("usr/local/nvidia/lib64", "libcuda").library("usr/local/nvidia/lib64", "libnvidia-ml")
                .program("usr/local/nvidia/bin/nvidia-smi").devices("nvidia0", "nvidia1", "nvidiactl", "nvidia-uvm");
        return root;
    }

    private GpuAccess open(DeviceListStrategy s, Path root, Path cdi) {
        var cfg = new DeviceListConfig(s, DriverRoots.onHost(root, root), cdi);
        return DeviceLists.open(cfg, nvml, InventoryPublisher.readHardware(nvml, "n1"), root.resolve("no-maps"));
    }

    @Test void envvar_theGrantAsItIs(@TempDir Path root) {
        assertThat(open(DeviceListStrategy.ENVVAR, root, root).apply(MPS, GPU_1)).isEqualTo(MPS);
    }

    @Test void deviceSpecs_mpsEnvAndPipeAsToday_plusTheGpusNodesAndTheDriversFilesReadOnly(@TempDir Path root) throws IOException {
        Grant g = open(DeviceListStrategy.DEVICE_SPECS, driver(root), root).apply(MPS, GPU_1);
        assertThat(g.env()).isEqualTo(MPS.env());
        assertThat(g.mounts().getFirst()).isEqualTo(MPS.mounts().getFirst());
        assertThat(g.mounts().subList(1, g.mounts().size())).allMatch(Grant.Mount::readOnly).extracting(Grant.Mount::containerPath)
                .contains("/usr/local/nvidia/lib64/libcuda.so.1", "/usr/local/nvidia/lib64/libcuda.so." + V, "/usr/local/nvidia/bin/nvidia-smi");
        assertThat(g.devices()).extracting(Grant.Device::containerPath).containsExactly("/dev/nvidia1", "/dev/nvidiactl", "/dev/nvidia-uvm");
        assertThat(g.devices()).allMatch(d -> d.permissions().equals("rw"));
        assertThat(g.cdiDevices()).isEmpty();
        var wire = MemoryHandler.response(g);
        assertThat(wire.getDevicesList()).extracting(d -> d.getHostPath()).containsExactly(root + "/dev/nvidia1", root + "/dev/nvidiactl", root + "/dev/nvidia-uvm");
        assertThat(wire.getMountsCount()).isEqualTo(g.mounts().size());
    }

    @Test void cdi_writesTheSpec_grantNamesTheGpusDevices(@TempDir Path root) throws IOException {
        Path cdi = root.resolve("cdi");
        Grant g = open(DeviceListStrategy.CDI, driver(root), cdi).apply(MPS, GPU_1);
        assertThat(g.env()).isEqualTo(MPS.env());
        assertThat(g.mounts()).isEqualTo(MPS.mounts());
        assertThat(g.devices()).isEmpty();
        assertThat(g.cdiDevices()).containsExactly("mpshare.io/gpu=GPU-b");
        assertThat(MemoryHandler.response(g).getCdiDevicesList()).extracting(d -> d.getName()).containsExactly("mpshare.io/gpu=GPU-b");
        var spec = new ObjectMapper().readTree(Files.readString(cdi.resolve(CdiSpec.FILE)));
        assertThat(spec.get("devices")).extracting(d -> d.get("name").asText()).containsExactly("GPU-a", "GPU-b");
        assertThat(spec.at("/devices/1/containerEdits/deviceNodes/0/path").asText()).isEqualTo("/dev/nvidia1");
    }

    @Test void deviceSpecs_noDriverFound_startRefusedWithTheReason(@TempDir Path root) {
        assertThatThrownBy(() -> open(DeviceListStrategy.DEVICE_SPECS, root, root))
                .isInstanceOf(IllegalStateException.class).hasMessageStartingWith("--device-list-strategy=device-specs: no libcuda.so." + V);
    }

    @Test void nvmlLibrary_underAMountedDriverRoot(@TempDir Path root) throws IOException {
        driver(root);
        assertThat(DriverDiscovery.nvmlLibrary(new DriverRoots(Path.of("/run/nvidia/driver"), root, Path.of("/"), root)))
                .contains(root.resolve("usr/local/nvidia/lib64/libnvidia-ml.so.1"));
    }

    @Test void parse_namesTheStrategies() {
        assertThat(DeviceListStrategy.parse("device-specs")).isEqualTo(DeviceListStrategy.DEVICE_SPECS);
        assertThatThrownBy(() -> DeviceListStrategy.parse("volume-mounts")).hasMessage("--device-list-strategy volume-mounts: use one of envvar, cdi, device-specs");
    }
}
