/**
 * The node agent behind {@code mpshare device-plugin}: {@link io.mpshare.deviceplugin.DevicePluginNode} wires the
 * GPU inventory publisher, the health monitor, one kubelet device plugin server per resource, the allocation
 * manager and the pod-resources reconciler. Configuration arrives as a {@link io.mpshare.deviceplugin.DevicePluginConfig}.
 */
package io.mpshare.deviceplugin;
