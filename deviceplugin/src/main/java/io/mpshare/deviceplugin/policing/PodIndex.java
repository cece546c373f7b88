package io.mpshare.deviceplugin.policing;

import io.mpshare.core.model.PodKey;

import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/** Pod UID → namespace/name for this node's pods, fed by {@link PolicingPods}; the Event and Eviction adapters read it. */
public final class PodIndex {
    private final Map<String, PodKey> byUid = new ConcurrentHashMap<>();

    public void put(String uid, PodKey key) { byUid.put(uid, key); }

    public void remove(String uid) { byUid.remove(uid); }

    public Optional<PodKey> get(String uid) { return uid == null || uid.isEmpty() ? Optional.empty() : Optional.ofNullable(byUid.get(uid)); }
}
