/**
 * The NVIDIA driver's files on this node, for the device-list strategies that give containers their GPUs without
 * NVIDIA's container toolkit: {@link io.mpshare.deviceplugin.driver.DriverDiscovery} finds the running driver's
 * libraries, utilities, firmware and device nodes the way its installer laid them out (the loader's cache,
 * {@link io.mpshare.deviceplugin.driver.LdCache}, the folder NVML was loaded from); {@link io.mpshare.deviceplugin.driver.CdiSpec}
 * writes them as a Container Device Interface spec. No Kubernetes or gRPC types here.
 */
package io.mpshare.deviceplugin.driver;
