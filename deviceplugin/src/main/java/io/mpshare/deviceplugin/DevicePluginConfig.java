package io.mpshare.deviceplugin;

import io.mpshare.core.MemoryUnit;
import io.mpshare.core.Names;
import io.mpshare.deviceplugin.policing.PolicingConfig;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;

/**
 * Everything {@code mpshare device-plugin} is told. {@link #defaults(String)} gives the production values; tests
 * point the socket paths at a temporary folder.
 *
 * @param runDir             host folder of the MPS generations; pipe dir answered is {@code runDir/<colour>/pipe}
 * @param healthPeriod       how often daemon and Xids are polled (≤ 2 s detection needs ≤ ~1.5 s)
 * @param endpointPeriod     how often the plugin checks its socket and kubelet's (re-registration delay)
 * @param informerWait       how long GetPreferredAllocation waits for the pod informer when it knows no pod for the call
 *                           (then it reads the node's pods directly); Allocate never waits for the informer
 * @param reconcileDelay     how soon after an Allocate pod-resources is read (confirms who got the IDs, marks assigned)
 * @param listBudgetBytes    the largest ListAndWatch message allowed (kubelet reads at most 4 MiB)
 * @param policing           the policer's flags (on by default; docs/policing.md)
 */
public record DevicePluginConfig(String nodeName, MemoryUnit unit, Path pluginDir, Path kubeletSocket, Path podResourcesSocket,
                                 Path runDir, boolean mountDevShm, Duration healthPeriod, Duration endpointPeriod,
                                 Duration informerWait, Duration reconcileDelay, Duration reconcilePeriod, Duration xidHold,
                                 Duration inventoryRefresh, int listBudgetBytes, PolicingConfig policing) {
    public static final String MEM_SOCKET = "mpshare-gpu-mem.sock";
    public static final String CORE_SOCKET = "mpshare-gpu-core.sock";

    public DevicePluginConfig {
        Objects.requireNonNull(nodeName, "nodeName");
        if (nodeName.isBlank()) throw new IllegalArgumentException("node name is blank: set --node-name or NODE_NAME from spec.nodeName");
        Objects.requireNonNull(unit, "unit");
        Objects.requireNonNull(policing, "policing");
        if (healthPeriod.compareTo(Duration.ofMillis(1500)) > 0)
            throw new IllegalArgumentException("health period " + healthPeriod + " is too long: devices must turn Unhealthy within 2 s");
    }

    public static DevicePluginConfig defaults(String nodeName) {
        return new DevicePluginConfig(nodeName, MemoryUnit.GIB, Path.of(Names.DEVICE_PLUGIN_DIR), Path.of(Names.KUBELET_SOCKET),
                Path.of(Names.POD_RESOURCES_SOCKET), Path.of(Names.RUN_DIR), false, Duration.ofMillis(500), Duration.ofSeconds(1),
                Duration.ofMillis(300), Duration.ofMillis(250), Duration.ofSeconds(30), Duration.ofMinutes(10), Duration.ofMinutes(5),
                2 << 20, PolicingConfig.defaults());
    }

    public DevicePluginConfig withSockets(Path pluginDir, Path kubeletSocket, Path podResourcesSocket) {
        return new DevicePluginConfig(nodeName, unit, pluginDir, kubeletSocket, podResourcesSocket, runDir, mountDevShm, healthPeriod,
                endpointPeriod, informerWait, reconcileDelay, reconcilePeriod, xidHold, inventoryRefresh, listBudgetBytes, policing);
    }

    public DevicePluginConfig withUnit(MemoryUnit u) {
        return new DevicePluginConfig(nodeName, u, pluginDir, kubeletSocket, podResourcesSocket, runDir, mountDevShm, healthPeriod,
                endpointPeriod, informerWait, reconcileDelay, reconcilePeriod, xidHold, inventoryRefresh, listBudgetBytes, policing);
    }

    public DevicePluginConfig withRunDir(Path dir, boolean devShm) {
        return new DevicePluginConfig(nodeName, unit, pluginDir, kubeletSocket, podResourcesSocket, dir, devShm, healthPeriod,
                endpointPeriod, informerWait, reconcileDelay, reconcilePeriod, xidHold, inventoryRefresh, listBudgetBytes, policing);
    }

    public DevicePluginConfig withPeriods(Duration health, Duration endpoint, Duration reconcileDelay) {
        return new DevicePluginConfig(nodeName, unit, pluginDir, kubeletSocket, podResourcesSocket, runDir, mountDevShm, health,
                endpoint, informerWait, reconcileDelay, reconcilePeriod, xidHold, inventoryRefresh, listBudgetBytes, policing);
    }

    public DevicePluginConfig withPolicing(PolicingConfig p) {
        return new DevicePluginConfig(nodeName, unit, pluginDir, kubeletSocket, podResourcesSocket, runDir, mountDevShm, healthPeriod,
                endpointPeriod, informerWait, reconcileDelay, reconcilePeriod, xidHold, inventoryRefresh, listBudgetBytes, p);
    }
}
