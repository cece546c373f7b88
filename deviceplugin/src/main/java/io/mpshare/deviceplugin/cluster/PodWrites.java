package io.mpshare.deviceplugin.cluster;

import io.mpshare.core.model.PodKey;

import java.util.Map;

/** The pod annotation writes the allocation side makes; {@link PodAnnotator} does them with JSON merge patches. */
public interface PodWrites {
    /** {@code mpshare.io/assigned=true} (and the ACK twin), asynchronously. */
    void markAssigned(PodKey pod);

    /** Sets these annotations, asynchronously. */
    void patch(PodKey pod, Map<String, String> annotations);
}
