package io.mpshare.deviceplugin.cluster;

import io.mpshare.core.Names;
import io.mpshare.core.model.PodKey;

import java.util.Map;

/** The pod annotation writes the allocation side makes; {@link PodAnnotator} does them with JSON merge patches. */
public interface PodWrites {
    /** {@code mpshare.io/assigned=true} (and the ACK twin), asynchronously. */
    void markAssigned(PodKey pod);

    /**
     * {@code assigned} plus {@link Names#ANN_MPS_COLOUR}: the MPS colour(s) the pod's containers were given. One write
     * where the implementation can ({@link PodAnnotator}); the default makes two.
     */
    default void markAssigned(PodKey pod, String colours) {
        markAssigned(pod);
        patch(pod, Map.of(Names.ANN_MPS_COLOUR, colours));
    }

    /** Sets these annotations, asynchronously. */
    void patch(PodKey pod, Map<String, String> annotations);
}
