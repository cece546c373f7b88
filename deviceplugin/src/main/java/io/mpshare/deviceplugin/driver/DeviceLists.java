package io.mpshare.deviceplugin.driver;

import io.mpshare.core.model.Gpu;
import io.mpshare.core.model.NodeInventory;
import io.mpshare.deviceplugin.allocation.GpuAccess;
import io.mpshare.nvml.Nvml;

import java.io.IOException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.logging.Logger;

/**
 * Builds the {@link GpuAccess} of {@code --device-list-strategy} at the device plugin's start: for device-specs and
 * cdi it finds the running driver's files ({@link DriverDiscovery}: the version and each GPU's minor number from
 * NVML, the folder NVML was loaded from in {@code procSelfMaps}); for cdi it writes the spec. A driver whose files are
 * not found stops the start with the reason: pods given such answers would start without a usable GPU.
 */
public final class DeviceLists {
    private static final Logger LOG = Logger.getLogger(DeviceLists.class.getName());

    private DeviceLists() {}

    public static GpuAccess open(DeviceListConfig cfg, Nvml nvml, NodeInventory hw, Path procSelfMaps) {
        if (cfg.strategy() == DeviceListStrategy.ENVVAR) return GpuAccess.NVIDIA_RUNTIME;
        Map<Integer, Integer> minors = new LinkedHashMap<>();
        Map<String, Integer> byUuid = new LinkedHashMap<>();
        for (Gpu g : hw.gpus()) {
            minors.put(g.index(), nvml.device(g.index()).minor());
            byUuid.put(g.uuid(), g.index());
        }
        Optional<Path> loaded = LoadedLibrary.find(procSelfMaps, "libnvidia-ml.so");
        DriverFiles files = switch (DriverDiscovery.find(cfg.roots(), nvml.driverVersion(), minors, loaded)) {
            case DriverDiscovery.Found f -> f.files();
            case DriverDiscovery.Missing m -> throw new IllegalStateException("--device-list-strategy=" + cfg.strategy().flag() + ": " + m.reason());
        };
        LOG.info(cfg.strategy().flag() + ": driver " + files.version() + ", " + files.libraries().size() + " library paths, "
                + files.utilities().size() + " utilities, " + files.firmware().size() + " firmware folder, device nodes "
                + files.gpuNodes().values().stream().map(DeviceNode::containerPath).toList() + " + "
                + files.controlNodes().stream().map(DeviceNode::containerPath).toList());
        if (cfg.strategy() == DeviceListStrategy.DEVICE_SPECS) return new DeviceSpecsAccess(files);
        try {
            Path spec = CdiSpec.write(cfg.cdiSpecDir(), CdiSpec.json(byUuid, files));
            LOG.info("cdi: wrote " + spec + " (kind " + CdiSpec.KIND + ", " + byUuid.size() + " devices)");
        } catch (IOException e) {
            throw new IllegalStateException("--device-list-strategy=cdi: cannot write the CDI spec in " + cfg.cdiSpecDir() + ": " + e.getMessage(), e);
        }
        return new CdiAccess();
    }
}
