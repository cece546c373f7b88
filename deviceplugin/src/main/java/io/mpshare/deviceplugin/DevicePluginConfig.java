package io.mpshare.deviceplugin;

import io.mpshare.core.MemoryUnit;
import io.mpshare.core.Names;
import io.mpshare.deviceplugin.allocation.AllocateHooks;
import io.mpshare.deviceplugin.driver.DeviceListConfig;
import io.mpshare.deviceplugin.policing.PolicingConfig;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;
import java.util.function.Consumer;

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
 * @param fallbackBudget     how long one direct read of the node's pods may take when kubelet is ahead of the informer
 * @param listBudgetBytes    the largest ListAndWatch message allowed (kubelet reads at most 4 MiB)
 * @param podFieldSelector   watch only this node's pods ({@code fieldSelector=spec.nodeName}); false only against API
 *                           test servers that ignore that field (then every pod is watched and filtered here)
 * @param policing           the policer's flags (on by default; docs/policing.md)
 * @param deviceList         how a container gets its GPUs: NVIDIA's runtime (the default), CDI, or device specs
 */
public record DevicePluginConfig(String nodeName, MemoryUnit unit, Path pluginDir, Path kubeletSocket, Path podResourcesSocket,
                                 Path runDir, boolean mountDevShm, Duration healthPeriod, Duration endpointPeriod,
                                 Duration informerWait, Duration reconcileDelay, Duration reconcilePeriod, Duration xidHold,
                                 Duration inventoryRefresh, Duration fallbackBudget, int listBudgetBytes, boolean podFieldSelector,
                                 PolicingConfig policing, DeviceListConfig deviceList) {
    public static final String MEM_SOCKET = "mpshare-gpu-mem.sock";
    public static final String CORE_SOCKET = "mpshare-gpu-core.sock";

    public DevicePluginConfig {
        Objects.requireNonNull(nodeName, "nodeName");
        if (nodeName.isBlank()) throw new IllegalArgumentException("node name is blank: set --node-name or NODE_NAME from spec.nodeName");
        Objects.requireNonNull(unit, "unit");
        Objects.requireNonNull(policing, "policing");
        Objects.requireNonNull(deviceList, "deviceList");
        Objects.requireNonNull(fallbackBudget, "fallbackBudget");
        if (healthPeriod.compareTo(Duration.ofMillis(1500)) > 0)
            throw new IllegalArgumentException("health period " + healthPeriod + " is too long: devices must turn Unhealthy within 2 s");
    }

    public static DevicePluginConfig defaults(String nodeName) {
        return new DevicePluginConfig(nodeName, MemoryUnit.GIB, Path.of(Names.DEVICE_PLUGIN_DIR), Path.of(Names.KUBELET_SOCKET),
                Path.of(Names.POD_RESOURCES_SOCKET), Path.of(Names.RUN_DIR), false, Duration.ofMillis(500), Duration.ofSeconds(1),
                Duration.ofMillis(300), Duration.ofMillis(250), Duration.ofSeconds(30), Duration.ofMinutes(10), Duration.ofMinutes(5),
                AllocateHooks.FALLBACK_BUDGET, 2 << 20, true, PolicingConfig.defaults(), DeviceListConfig.defaults());
    }

    public DevicePluginConfig withSockets(Path pluginDir, Path kubeletSocket, Path podResourcesSocket) {
        return edit(b -> {
            b.pluginDir = pluginDir;
            b.kubeletSocket = kubeletSocket;
            b.podResourcesSocket = podResourcesSocket;
        });
    }

    public DevicePluginConfig withUnit(MemoryUnit u) { return edit(b -> b.unit = u); }

    public DevicePluginConfig withRunDir(Path dir, boolean devShm) {
        return edit(b -> {
            b.runDir = dir;
            b.mountDevShm = devShm;
        });
    }

    public DevicePluginConfig withPeriods(Duration health, Duration endpoint, Duration reconcileDelay) {
        return edit(b -> {
            b.healthPeriod = health;
            b.endpointPeriod = endpoint;
            b.reconcileDelay = reconcileDelay;
        });
    }

    public DevicePluginConfig withPolicing(PolicingConfig p) { return edit(b -> b.policing = p); }

    public DevicePluginConfig withDeviceList(DeviceListConfig d) { return edit(b -> b.deviceList = d); }

    /** Tests against fabric8's mock API server: it ignores {@code fieldSelector=spec.nodeName} in watches. */
    public DevicePluginConfig withPodFieldSelector(boolean selector) { return edit(b -> b.podFieldSelector = selector); }

    /** Tests on a loaded machine give the mock API server more than the production budget. */
    public DevicePluginConfig withFallbackBudget(Duration budget) { return edit(b -> b.fallbackBudget = budget); }

    private DevicePluginConfig edit(Consumer<Copy> change) {
        Copy c = new Copy(this);
        change.accept(c);
        return c.build();
    }

    /** This record's components, to change a few and build again (the constructor checks the result). */
    private static final class Copy {
        String nodeName;
        MemoryUnit unit;
        Path pluginDir, kubeletSocket, podResourcesSocket, runDir;
        boolean mountDevShm, podFieldSelector;
        Duration healthPeriod, endpointPeriod, informerWait, reconcileDelay, reconcilePeriod, xidHold, inventoryRefresh, fallbackBudget;
        int listBudgetBytes;
        PolicingConfig policing;
        DeviceListConfig deviceList;

        Copy(DevicePluginConfig c) {
            nodeName = c.nodeName;
            unit = c.unit;
            pluginDir = c.pluginDir;
            kubeletSocket = c.kubeletSocket;
            podResourcesSocket = c.podResourcesSocket;
            runDir = c.runDir;
            mountDevShm = c.mountDevShm;
            healthPeriod = c.healthPeriod;
            endpointPeriod = c.endpointPeriod;
            informerWait = c.informerWait;
            reconcileDelay = c.reconcileDelay;
            reconcilePeriod = c.reconcilePeriod;
            xidHold = c.xidHold;
            inventoryRefresh = c.inventoryRefresh;
            fallbackBudget = c.fallbackBudget;
            listBudgetBytes = c.listBudgetBytes;
            podFieldSelector = c.podFieldSelector;
            policing = c.policing;
            deviceList = c.deviceList;
        }

        DevicePluginConfig build() {
            return new DevicePluginConfig(nodeName, unit, pluginDir, kubeletSocket, podResourcesSocket, runDir, mountDevShm, healthPeriod,
                    endpointPeriod, informerWait, reconcileDelay, reconcilePeriod, xidHold, inventoryRefresh, fallbackBudget, listBudgetBytes,
                    podFieldSelector, policing, deviceList);
        }
    }
}
