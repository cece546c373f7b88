package io.mpshare.deviceplugin.allocation;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Device-ID set → {@link Answer}. kubelet gives each live container its own device IDs, so the set a container holds
 * (pod-resources API) names the answer it received. In memory only: after a restart the reconciler has nothing to
 * correct for containers answered before it, which is the safe direction.
 */
public final class AnswerLog {
    private final Map<String, Answer> byDevices = new ConcurrentHashMap<>();

    public static String key(Collection<String> deviceIds) {
        var ids = new ArrayList<>(deviceIds);
        ids.sort(null);
        return String.join(",", ids);
    }

    public void record(Collection<String> deviceIds, Answer a) { byDevices.put(key(deviceIds), a); }

    public Optional<Answer> get(Collection<String> deviceIds) { return Optional.ofNullable(byDevices.get(key(deviceIds))); }

    public void replace(Collection<String> deviceIds, Answer a) { byDevices.put(key(deviceIds), a); }

    /** Drops answers older than {@code before} whose device sets no container holds any more. */
    public int prune(Set<String> heldKeys, Instant before) {
        int n = byDevices.size();
        byDevices.entrySet().removeIf(e -> !heldKeys.contains(e.getKey()) && e.getValue().at().isBefore(before));
        return n - byDevices.size();
    }

    /** How many answers given after {@code since} no container holds yet (pod-resources has not caught up). */
    public int unheld(Set<String> heldKeys, Instant since) {
        int n = 0;
        for (var e : byDevices.entrySet()) if (!heldKeys.contains(e.getKey()) && e.getValue().at().isAfter(since)) n++;
        return n;
    }

    public int size() { return byDevices.size(); }

    public List<Answer> all() { return List.copyOf(byDevices.values()); }
}
