package io.mpshare.policing;

import io.mpshare.core.codec.UsageCodec;

import java.util.Map;

/**
 * Receives per-pod usage (allocated vs used, per GPU and container), at most every {@code usageEvery}.
 * The device plugin writes {@code Names.ANN_USAGE} with {@link UsageCodec#encode} on each pod whose
 * value changed (merge patch); host mode keeps it for {@code mpshare ps}.
 */
@FunctionalInterface
public interface UsageSink {
    /** @param byPodUid every pod with an allocation on this node, even idle ones */
    void publish(Map<String, UsageCodec.PodUsage> byPodUid);

    static UsageSink none() { return u -> {}; }
}
