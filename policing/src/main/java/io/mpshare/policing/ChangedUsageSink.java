package io.mpshare.policing;

import io.mpshare.core.codec.UsageCodec;
import io.mpshare.core.codec.UsageCodec.ContainerUsage;
import io.mpshare.core.codec.UsageCodec.GpuUsage;

import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A {@link UsageSink} decorator that forwards only the pods whose usage changed enough to be worth a write:
 * a new pod, a different set of GPUs or containers, a process count that changed, any used figure that moved
 * by more than {@code toleranceMib}, or a last forwarded value older than {@code maxAge} (so {@code at} on the
 * annotation never goes stale). The device plugin wraps its annotation patcher in it: a node of 20 pods then
 * patches when something happens, not 2 pods a second. Pods that left are forgotten. Single-threaded, like
 * the policer's cycle that calls it.
 */
public final class ChangedUsageSink implements UsageSink {
    private final UsageSink delegate;
    private final long toleranceMib;
    private final Duration maxAge;
    private final Map<String, UsageCodec.PodUsage> last = new HashMap<>();

    public ChangedUsageSink(UsageSink delegate, long toleranceMib, Duration maxAge) {
        this.delegate = Objects.requireNonNull(delegate, "delegate");
        if (toleranceMib < 0) throw new IllegalArgumentException("toleranceMib must be >= 0");
        this.toleranceMib = toleranceMib;
        this.maxAge = Objects.requireNonNull(maxAge, "maxAge");
    }

    @Override
    public void publish(Map<String, UsageCodec.PodUsage> byPodUid) {
        Map<String, UsageCodec.PodUsage> changed = new LinkedHashMap<>();
        byPodUid.forEach((uid, u) -> {
            UsageCodec.PodUsage before = last.get(uid);
            if (before == null || !u.at().isBefore(before.at().plus(maxAge)) || differs(before, u)) changed.put(uid, u);
        });
        last.keySet().retainAll(byPodUid.keySet());
        last.putAll(changed);
        if (!changed.isEmpty()) delegate.publish(changed);
    }

    private boolean differs(UsageCodec.PodUsage a, UsageCodec.PodUsage b) {
        return differsGpus(a.gpus(), b.gpus()) || differsContainers(a.containers(), b.containers());
    }

    private boolean differsGpus(List<GpuUsage> a, List<GpuUsage> b) {
        if (a.size() != b.size()) return true;
        for (int i = 0; i < a.size(); i++) {
            GpuUsage x = a.get(i), y = b.get(i);
            if (x.index() != y.index() || x.allocatedMib() != y.allocatedMib() || x.processes() != y.processes()
                    || Math.abs(x.usedMib() - y.usedMib()) > toleranceMib) return true;
        }
        return false;
    }

    private boolean differsContainers(List<ContainerUsage> a, List<ContainerUsage> b) {
        if (a.size() != b.size()) return true;
        for (int i = 0; i < a.size(); i++) {
            ContainerUsage x = a.get(i), y = b.get(i);
            if (!x.name().equals(y.name()) || x.gpu() != y.gpu() || x.processes() != y.processes()
                    || Math.abs(x.usedMib() - y.usedMib()) > toleranceMib) return true;
        }
        return false;
    }
}
