package io.mpshare.policing;

import io.mpshare.core.ledger.Allocation;

import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A thread-safe {@link NodeView} that its owner keeps up to date: the device plugin's pod informer calls
 * {@link #put} when a pod of this node has a decoded allocation and {@link #remove} when it is gone; host
 * mode's registry does the same for its jobs. The policer reads it once per cycle.
 */
public final class LiveNodeView implements NodeView {
    private final Map<String, Allocation> byUid = new ConcurrentHashMap<>();
    private final Set<String> exempt = ConcurrentHashMap.newKeySet();
    private final Map<Integer, Boolean> health = new ConcurrentHashMap<>();
    private final Map<Integer, Boolean> shared = new ConcurrentHashMap<>();

    /** Adds or replaces a pod's allocation (keyed by {@code Allocation.podUid()}, which must be set). */
    public void put(Allocation a) {
        Objects.requireNonNull(a, "allocation");
        if (a.podUid().isBlank()) throw new IllegalArgumentException(a.pod() + ": allocation has no pod UID");
        byUid.put(a.podUid(), a);
    }

    public void remove(String podUid) { byUid.remove(podUid); exempt.remove(podUid); }

    public void exempt(String podUid) { exempt.add(podUid); }

    public void healthy(int gpu, boolean h) { health.put(gpu, h); }

    /** GPUs are shared unless marked otherwise. */
    public void shared(int gpu, boolean s) { shared.put(gpu, s); }

    @Override public List<Allocation> allocations() { return List.copyOf(byUid.values()); }

    @Override public boolean shared(int index) { return shared.getOrDefault(index, true); }

    @Override public boolean healthy(int index) { return health.getOrDefault(index, true); }

    @Override public Set<String> exemptPods() { return Set.copyOf(exempt); }
}
