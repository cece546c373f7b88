package io.mpshare.scheduler.bind;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.mpshare.core.model.PodKey;
import io.mpshare.scheduler.cluster.PodTranslator;

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
public final class PendingPods implements ResourceEventHandler<Pod> {
    private final ConcurrentHashMap<PodKey, Pod> pending = new ConcurrentHashMap<>();

    /** Never has a pod: every bind reads from the API server (tests, tools without an informer). */
    public static PendingPods none() { return new PendingPods(); }

    /** The informer's copy of {@code key} when it is unbound and, if {@code uid} is given, has that UID; else null. */
    public Pod matching(PodKey key, String uid) {
        Pod p = pending.get(key);
        if (p == null || (!uid.isEmpty() && !uid.equals(PodTranslator.uid(p)))) return null;
        return p;
    }

    public int size() { return pending.size(); }

    @Override public void onAdd(Pod p) { apply(p); }

    @Override public void onUpdate(Pod old, Pod p) { apply(p); }

    @Override public void onDelete(Pod p, boolean unknownFinalState) { pending.remove(PodTranslator.key(p)); }

    private void apply(Pod p) {
        PodKey k = PodTranslator.key(p);
        if (PodTranslator.nodeName(p) == null && p.getMetadata().getDeletionTimestamp() == null) pending.put(k, p);
        else pending.remove(k);
    }
}
