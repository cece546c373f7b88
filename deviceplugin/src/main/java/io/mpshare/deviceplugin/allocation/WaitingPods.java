package io.mpshare.deviceplugin.allocation;

import io.fabric8.kubernetes.api.model.Pod;
import io.mpshare.core.MemoryUnit;
import io.mpshare.core.Names;
import io.mpshare.core.codec.AllocationCodec.Decoded;
import io.mpshare.core.ledger.Allocation;
import io.mpshare.core.ledger.Phase;
import io.mpshare.core.model.NodeInventory;
import io.mpshare.core.model.PodKey;
import io.mpshare.kube.KubePod;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * The informer's side of Allocate: each pod of this node filed once per change as a {@link Candidate} (placed or
 * unplaced) or dropped. Fed by the pod informer and by direct reads of the node's pods when the informer is behind;
 * a version older than one already filed is ignored, so a direct read and the watch can arrive in either order.
 * Runs on the informer thread (or the reader's); everything here is a concurrent map, read by Allocate without a lock.
 */
final class WaitingPods {
    private final String node;
    private final MemoryUnit unit;
    private final NodeInventory hardware;
    private final Consumer<String> forgotten;
    private final AtomicLong next = new AtomicLong();

    private final ConcurrentHashMap<String, Candidate> candidates = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<PodKey, Allocation> known = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, Long> seqs = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, Long> versions = new ConcurrentHashMap<>();
    private final Set<String> refused = ConcurrentHashMap.newKeySet();

    WaitingPods(String node, MemoryUnit unit, NodeInventory hardware, Consumer<String> forgotten) {
        this.node = node;
        this.unit = unit;
        this.hardware = hardware;
        this.forgotten = forgotten;
    }

    void upserted(Pod pod) {
        String uid = pod.getMetadata().getUid();
        if (uid == null || stale(uid, pod.getMetadata().getResourceVersion())) return;
        KubePod p = KubePod.of(pod);
        PodKey key = p.key();
        String phase = p.phase();
        if (p.finished() || p.deleting()) {
            candidates.remove(uid);
            if (!p.finished()) return;   // terminating: keep what it holds known
            forget(uid, key);
            return;
        }
        long seq = seqs.computeIfAbsent(uid, u -> next.incrementAndGet());
        switch (p.booking(hardware, unit)) {
            case Decoded.Found f -> found(uid, seq, f.allocation());
            case Decoded.Malformed m -> unplaced(p, seq, phase, m.reason());
            case Decoded.None n -> {
                if (p.asksGpuMem()) unplaced(p, seq, phase, "pod " + key + " asks " + Names.RESOURCE_GPU_MEM
                        + " but carries no " + Names.ANN_ALLOCATION + ", so the mpshare scheduler extender did not place it");
                else forget(uid, key);
            }
        }
    }

    /** Whether {@code rv} is older than the version already filed for {@code uid} (numeric versions only). */
    private boolean stale(String uid, String rv) {
        if (rv == null) return false;
        long v;
        try { v = Long.parseLong(rv); } catch (NumberFormatException e) { return false; }
        Long had = versions.get(uid);
        if (had != null && had > v) return true;
        versions.put(uid, v);
        return false;
    }

    private void found(String uid, long seq, Allocation a) {
        known.put(a.pod(), a);
        if (!a.node().equals(node)) {
            file(Candidate.unplaced(infoOf(a), unit, seq, "pod " + a.pod() + " has an allocation for node " + a.node() + ", not " + node));
        } else if (a.phase() == Phase.ASSIGNED) {
            candidates.remove(uid);
        } else {
            candidates.put(uid, Candidate.placed(a, unit, seq));
        }
    }

    private static io.mpshare.core.model.PodInfo infoOf(Allocation a) {
        var cs = new ArrayList<io.mpshare.core.model.ContainerRequest>();
        for (var s : a.demand().containers())
            cs.add(new io.mpshare.core.model.ContainerRequest(s.name(), s.init(), s.memMibPerGpu() * a.demand().gpuCount(), 0));
        return new io.mpshare.core.model.PodInfo(a.pod(), a.podUid(), cs, a.demand().gpuCount(), java.util.OptionalLong.empty());
    }

    private void unplaced(KubePod pod, long seq, String phase, String reason) {
        String uid = pod.uid();
        known.remove(pod.key());
        if (phase != null && !"Pending".equals(phase)) { candidates.remove(uid); return; }
        file(Candidate.unplaced(pod.facts().toPodInfoLenient(unit), unit, seq, reason));
    }

    private void file(Candidate c) {
        if (refused.contains(c.uid()) || c.units().length == 0) { candidates.remove(c.uid()); return; }
        candidates.put(c.uid(), c);
    }

    void deleted(Pod pod) { forget(pod.getMetadata().getUid(), KubePod.of(pod).key()); }

    private void forget(String uid, PodKey key) {
        candidates.remove(uid);
        refused.remove(uid);
        seqs.remove(uid);
        versions.remove(uid);
        known.remove(key);
        forgotten.accept(uid);
    }

    /** An unplaced pod was refused: kubelet fails it, so no later call is meant for it. */
    void refused(String uid) {
        refused.add(uid);
        candidates.remove(uid);
    }

    /** Sorted: part-answered pods first (kubelet finishes one pod before the next), then by arrival. */
    List<Candidate> ordered(java.util.function.Predicate<Candidate> started) {
        var list = new ArrayList<>(candidates.values());
        list.sort(Comparator.<Candidate>comparingInt(c -> started.test(c) ? 0 : 1).thenComparingLong(Candidate::seq));
        return list;
    }

    Collection<Candidate> all() { return candidates.values(); }

    Optional<Candidate> candidate(String uid) { return Optional.ofNullable(candidates.get(uid)); }

    void drop(String uid) { candidates.remove(uid); }

    Optional<Allocation> known(PodKey pod) { return Optional.ofNullable(known.get(pod)); }

    void know(Allocation a) { known.put(a.pod(), a); }

    int size() { return candidates.size(); }
}
