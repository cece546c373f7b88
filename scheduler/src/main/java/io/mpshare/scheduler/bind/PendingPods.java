package io.mpshare.scheduler.bind;

import io.mpshare.core.model.PodKey;
import io.mpshare.kube.KubePod;
import io.mpshare.kube.PodEvents;

import java.util.Collection;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The pods the pod informer shows unbound, so that a bind can start from the informer's copy instead of a GET
 * (docs/decisions/bind-order.md). Fed by the pod informer ({@code ClusterView.addPodHandler}); holds only pods with no
 * {@code spec.nodeName}, so its size is the pending queue's, not the cluster's.
 *
 * <p>Why a copy that may lag is enough: the bind reads from it only what does not change on a pending pod (UID,
 * schedulerName, containers and their resources, runAsUser), and only when its UID is the one kube-scheduler named.
 * Everything that can change is settled by the Binding itself: the API server refuses it for another pod of that name
 * (UID precondition), for a pod already bound, and for a pod being deleted, and the bind then reads the pod back from
 * the API server before it decides.
 */
public final class PendingPods implements PodEvents {
    private final ConcurrentHashMap<PodKey, KubePod> pending = new ConcurrentHashMap<>();

    /** Never has a pod: every bind reads from the API server (tests, tools without an informer). */
    public static PendingPods none() { return new PendingPods(); }

    /** The informer's copy of {@code key} when it is unbound and, if {@code uid} is given, has that UID; else null. */
    public KubePod matching(PodKey key, String uid) {
        KubePod p = pending.get(key);
        if (p == null || (!uid.isEmpty() && !uid.equals(p.uid()))) return null;
        return p;
    }

    public int size() { return pending.size(); }

    /** Every unbound pod the informer shows now. */
    public Collection<KubePod> all() { return List.copyOf(pending.values()); }

    @Override public void upserted(KubePod p) {
        PodKey k = p.key();
        if (p.nodeName() == null && !p.deleting()) pending.put(k, p);
        else pending.remove(k);
    }

    @Override public void deleted(KubePod p) { pending.remove(p.key()); }
}
