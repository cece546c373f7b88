package io.mpshare.deviceplugin.cluster;

import io.fabric8.kubernetes.api.model.Pod;

/** Told about every change to a pod of this node, on the informer's thread: keep it short, never block. */
public interface PodListener {
    void upserted(Pod pod);

    void deleted(Pod pod);
}
