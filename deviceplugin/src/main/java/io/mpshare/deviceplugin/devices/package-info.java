/**
 * The fake devices kubelet counts: one per memory unit per GPU for {@code aliyun.com/gpu-mem}, one per percent per
 * GPU for {@code aliyun.com/gpu-core.percentage}. IDs encode the GPU ({@link io.mpshare.deviceplugin.devices.DeviceIds});
 * {@link io.mpshare.deviceplugin.devices.DeviceCatalog} builds the ListAndWatch lists from the inventory and health.
 */
package io.mpshare.deviceplugin.devices;
