package io.mpshare.deviceplugin;

import io.mpshare.mps.preflight.Preflight;
import io.mpshare.mps.preflight.ProcTable;

import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.List;

/**
 * One device plugin per kubelet: before the agent publishes the inventory, removes or serves a socket or registers,
 * it takes {@code <plugin-dir>/.mpshare/device-plugin.lock} and checks that neither of its sockets answers and (from
 * the command) that its {@code --metrics-port} is free. A second plugin refuses with one line and changes nothing.
 * The lock sits in a subfolder because kubelet, when it starts, removes the files of the plugin folder (every
 * file in some versions, not only sockets) but never its subfolders.
 */
public final class DevicePluginPreflight {
    /** The lock file, relative to the plugin folder. */
    public static final String LOCK = ".mpshare/device-plugin.lock";
    static final String ADVICE = "Stop it first: one device plugin per node";

    private DevicePluginPreflight() {}

    /** The checks of the plugin folder; {@code metricsPort} 0 leaves the port out (the node itself does not bind it). */
    public static Preflight of(Path pluginDir, int metricsPort) {
        List<Preflight.Port> ports = metricsPort > 0 ? List.of(new Preflight.Port(new InetSocketAddress(metricsPort), "--metrics-port")) : List.of();
        return new Preflight("another device plugin", ADVICE, pluginDir.resolve(LOCK),
                List.of(pluginDir.resolve(DevicePluginConfig.MEM_SOCKET), pluginDir.resolve(DevicePluginConfig.CORE_SOCKET)), ports, ProcTable.host());
    }
}
