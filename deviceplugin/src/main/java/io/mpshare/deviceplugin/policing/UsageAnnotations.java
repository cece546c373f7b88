package io.mpshare.deviceplugin.policing;

import io.mpshare.core.Names;
import io.mpshare.core.codec.UsageCodec;
import io.mpshare.core.model.PodKey;
import io.mpshare.deviceplugin.cluster.PodWrites;
import io.mpshare.policing.ChangedUsageSink;
import io.mpshare.policing.UsageSink;

import java.time.Duration;
import java.util.Map;
import java.util.Optional;

/**
 * Per-pod usage as {@code mpshare.io/usage} ({@link UsageCodec#encode}), a JSON merge patch per pod through
 * {@link PodWrites} (asynchronous). {@link #changedOnly} wraps it in {@link ChangedUsageSink} (256 MiB, 5 min) so a
 * pod is written when its usage moved, not at every publish.
 */
public final class UsageAnnotations implements UsageSink {
    private final PodWrites writes;
    private final PodIndex pods;

    public UsageAnnotations(PodWrites writes, PodIndex pods) {
        this.writes = writes;
        this.pods = pods;
    }

    public static UsageSink changedOnly(PodWrites writes, PodIndex pods) {
        return new ChangedUsageSink(new UsageAnnotations(writes, pods), 256, Duration.ofMinutes(5));
    }

    @Override public void publish(Map<String, UsageCodec.PodUsage> byPodUid) {
        byPodUid.forEach((uid, u) -> {
            Optional<PodKey> k = pods.get(uid);
            k.ifPresent(key -> writes.patch(key, Map.of(Names.ANN_USAGE, UsageCodec.encode(u))));
        });
    }
}
