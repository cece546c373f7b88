package io.mpshare.deviceplugin.driver;

import java.nio.file.Path;
import java.util.Objects;

/**
 * The device plugin's device-list flags.
 *
 * @param roots      where the driver's files and device nodes are (device-specs, cdi)
 * @param cdiSpecDir where the CDI spec is written (cdi): a folder the node's runtime reads, {@code /var/run/cdi} by default
 */
public record DeviceListConfig(DeviceListStrategy strategy, DriverRoots roots, Path cdiSpecDir) {
    public static final Path CDI_SPEC_DIR = Path.of("/var/run/cdi");

    public DeviceListConfig {
        Objects.requireNonNull(strategy, "strategy");
        Objects.requireNonNull(roots, "roots");
        Objects.requireNonNull(cdiSpecDir, "cdiSpecDir");
    }

    /** The NVIDIA runtime's strategy, driver on the host. */
    public static DeviceListConfig defaults() {
        return new DeviceListConfig(DeviceListStrategy.ENVVAR, DriverRoots.onHost(Path.of("/"), Path.of("/")), CDI_SPEC_DIR);
    }
}
