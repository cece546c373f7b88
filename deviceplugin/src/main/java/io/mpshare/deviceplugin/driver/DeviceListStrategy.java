package io.mpshare.deviceplugin.driver;

import java.util.Arrays;
import java.util.Locale;

/** {@code --device-list-strategy}: how Allocate gives a container its GPUs (docs/device-plugin.md, "Device lists"). */
public enum DeviceListStrategy {
    /** {@code NVIDIA_VISIBLE_DEVICES} for NVIDIA's container runtime, which adds device nodes and driver files. */
    ENVVAR("envvar"),
    /** CDI devices of the spec the plugin writes ({@code mpshare.io/gpu=<uuid>}), injected by a CDI-aware runtime. */
    CDI("cdi"),
    /** The device nodes as device specs and the driver's files as read-only mounts: no toolkit, any CRI runtime. */
    DEVICE_SPECS("device-specs");

    private final String flag;

    DeviceListStrategy(String flag) { this.flag = flag; }

    public String flag() { return flag; }

    public static DeviceListStrategy parse(String s) {
        for (DeviceListStrategy d : values()) if (d.flag.equals(s.strip().toLowerCase(Locale.ROOT))) return d;
        throw new IllegalArgumentException("--device-list-strategy " + s + ": use one of "
                + String.join(", ", Arrays.stream(values()).map(DeviceListStrategy::flag).toList()));
    }
}
