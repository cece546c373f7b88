/**
 * The API-server side of the node agent: an informer-backed cache of this node's pods ({@link
 * io.mpshare.deviceplugin.cluster.NodePodCache}, meant to be shared with the policer), a view of this node's
 * annotations ({@link io.mpshare.deviceplugin.cluster.NodeView}), JSON merge patches of pod annotations
 * ({@link io.mpshare.deviceplugin.cluster.PodAnnotator}) and the GPU inventory publisher.
 */
package io.mpshare.deviceplugin.cluster;
