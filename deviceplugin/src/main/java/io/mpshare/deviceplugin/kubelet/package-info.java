/**
 * The kubelet wire adapters: the device plugin API v1beta1 (one {@link io.mpshare.deviceplugin.kubelet.ResourceServer}
 * per resource, served on a unix socket and registered by a {@link io.mpshare.deviceplugin.kubelet.PluginEndpoint})
 * and the pod-resources API v1 ({@link io.mpshare.deviceplugin.kubelet.PodResourcesClient}). Translate in, call the
 * {@link io.mpshare.deviceplugin.kubelet.ResourceHandler} ({@link io.mpshare.deviceplugin.kubelet.MemoryHandler} over
 * the allocation side's decision, {@link io.mpshare.deviceplugin.kubelet.CoreHandler}), translate out.
 */
package io.mpshare.deviceplugin.kubelet;
