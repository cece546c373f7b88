package io.mpshare.deviceplugin.allocation;

import io.mpshare.core.model.PodKey;

import java.util.List;

/**
 * kubelet's record of which container holds which {@code aliyun.com/gpu-mem} device IDs (the pod-resources API): the
 * {@link Reconciler}'s truth. The kubelet adapter reads it over gRPC; tests give a list.
 */
public interface PodResources {
    /** One container's device IDs, every entry of the container merged. */
    record Holding(PodKey pod, String container, List<String> deviceIds) {
        public Holding { deviceIds = List.copyOf(deviceIds); }
    }

    /** Every container that holds IDs now. */
    List<Holding> holdings();
}
