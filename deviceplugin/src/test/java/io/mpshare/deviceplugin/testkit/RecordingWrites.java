package io.mpshare.deviceplugin.testkit;

import io.mpshare.core.model.PodKey;
import io.mpshare.deviceplugin.cluster.PodWrites;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** Records the annotation writes instead of sending them (pure tests). */
public final class RecordingWrites implements PodWrites {
    public record Write(PodKey pod, Map<String, String> annotations) {}

    public final List<Write> writes = new ArrayList<>();

    @Override public synchronized void markAssigned(PodKey pod) { writes.add(new Write(pod, Map.of("assigned", "true"))); }

    @Override public synchronized void patch(PodKey pod, Map<String, String> annotations) { writes.add(new Write(pod, Map.copyOf(annotations))); }

    public synchronized List<PodKey> assigned() {
        return writes.stream().filter(w -> w.annotations().containsKey("assigned")).map(Write::pod).toList();
    }
}
