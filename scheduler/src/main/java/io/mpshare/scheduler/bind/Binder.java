package io.mpshare.scheduler.bind;

import io.fabric8.kubernetes.api.model.Pod;
import io.mpshare.core.MemoryUnit;
import io.mpshare.core.codec.AllocationCodec;
import io.mpshare.core.ledger.Allocation;
import io.mpshare.core.ledger.AssumeResult;
import io.mpshare.core.ledger.Ledger;
import io.mpshare.core.ledger.NodeState;
import io.mpshare.core.ledger.Phase;
import io.mpshare.core.model.PodKey;
import io.mpshare.scheduler.PodFacts;
import io.mpshare.scheduler.Verbs;
import io.mpshare.scheduler.cluster.PodTranslator;

import java.lang.System.Logger.Level;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * Binds a pod to the node kube-scheduler chose, and books its GPUs.
 *
 * <p>Implementation notes.
 * <ul>
 * <li>Order: read the pod → resolve its demand → {@code assume} in the ledger (the policy picks the GPUs,
 *     fit check and booking are one atomic step per node) → PATCH the allocation annotations with the
 *     pod's resourceVersion → POST the Binding → {@code confirmBound}. Annotation first: the device plugin
 *     must find the allocation the moment kubelet sees the pod, and a pod annotated but not bound is
 *     harmless (it is re-placed and its stale booking expires), while a pod bound without annotation
 *     would start on a GPU nobody chose (docs/decisions/bind-order.md).</li>
 * <li>Concurrency: no lock is held across API calls. Concurrent binds to one node are safe because the
 *     ledger's assume checks and books under the node's entry; two binds of the same pod meet in the
 *     ledger (AlreadyPlaced) and at the API server (the second Binding answers 409, read as success when
 *     the pod is on the asked node).</li>
 * <li>Failure: anything after a successful assume that does not end bound releases the booking this call
 *     made (only if it is still the one it made) and removes the annotations on a best-effort basis.</li>
 * <li>Retry: a 409 on the PATCH means the pod changed under us; the pod is read again and the PATCH
 *     retried, at most {@code attempts} times in all.</li>
 * </ul>
 */
public final class Binder {
    private static final System.Logger LOG = System.getLogger(Binder.class.getName());
    /** The annotation keys the codec writes, learnt from a sample allocation. */
    private static final java.util.Set<String> ANNOTATION_KEYS = AllocationCodec.encode(sample(), MemoryUnit.MIB).keySet();
    private final Ledger ledger;
    private final Verbs verbs;
    private final PodApi api;
    private final int attempts;

    public Binder(Ledger ledger, Verbs verbs, PodApi api, int attempts) {
        this.ledger = ledger;
        this.verbs = verbs;
        this.api = api;
        this.attempts = attempts;
    }

    public BindOutcome bind(String namespace, String name, String uid, String node) {
        PodKey key;
        try { key = PodKey.of(namespace == null ? "" : namespace, name); }
        catch (RuntimeException e) { return new BindOutcome.Failed("bad_request", "the bind request names no pod"); }
        BindOutcome out = attempt(key, uid == null ? "" : uid, node);
        switch (out) {
            case BindOutcome.Bound b when b.allocation() != null -> LOG.log(Level.INFO, "bind pod={0} node={1} gpus={2} mib={3} outcome={4}",
                    key, node, b.allocation().gpuIndices(), Long.toString(b.allocation().demand().chargeMib()), b.already() ? "already-bound" : "bound");
            case BindOutcome.Bound b -> LOG.log(Level.INFO, "bind pod={0} node={1} outcome=bound-without-gpu", key, node);
            case BindOutcome.Failed f -> LOG.log(Level.WARNING, "bind pod={0} node={1} outcome=failed reason={2} message={3}", key, node, f.reason(), f.message());
        }
        return out;
    }

    private BindOutcome attempt(PodKey key, String uid, String node) {
        Allocation mine = null; // the booking this call made, to roll back
        try {
            for (int i = 1; ; i++) {
                Pod pod = api.get(key);
                if (pod == null) return release(mine, new BindOutcome.Failed("pod_not_found", "pod " + key + " does not exist (deleted while it was being scheduled?)"));
                String podUid = PodTranslator.uid(pod);
                if (!uid.isEmpty() && !podUid.isEmpty() && !uid.equals(podUid))
                    return release(mine, new BindOutcome.Failed("uid_mismatch", "pod " + key + " now has UID " + podUid + ", not " + uid
                            + ": it was deleted and created again; kube-scheduler will schedule the new one"));
                String boundTo = PodTranslator.nodeName(pod);
                if (boundTo != null) {
                    if (!boundTo.equals(node)) return release(mine, new BindOutcome.Failed("bound_elsewhere", "pod " + key + " is already bound to node " + boundTo + ", not " + node));
                    return alreadyBound(key, pod, node);
                }
                PodFacts facts = PodTranslator.facts(pod);
                Verbs.Need need = verbs.need(facts);
                if (need instanceof Verbs.Need.Bad b) return release(mine, new BindOutcome.Failed("bad_pod", b.reason()));
                if (need instanceof Verbs.Need.None) {
                    api.bind(key, podUid, node);
                    return new BindOutcome.Bound(null, false);
                }
                var g = (Verbs.Need.Gpu) need;
                Allocation booked;
                switch (verbs.engine().assume(key, podUid, node, g.demand())) {
                    case AssumeResult.Assumed a -> { booked = a.allocation(); mine = booked; }
                    case AssumeResult.AlreadyPlaced a -> booked = a.allocation();
                    case AssumeResult.Rejected r -> { return release(mine, new BindOutcome.Failed("no_room", r.reason())); }
                }
                try {
                    api.patchAnnotations(key, pod.getMetadata().getResourceVersion(), AllocationCodec.encode(booked, verbs.unit()));
                } catch (PodApi.Failure f) {
                    if (f.conflict() && i < attempts) {
                        LOG.log(Level.DEBUG, "bind pod={0} node={1} annotate conflict, attempt {2} of {3}", key, node, i, attempts);
                        continue;
                    }
                    return release(mine, new BindOutcome.Failed(f.conflict() ? "conflict" : "api_error", f.getMessage()
                            + (f.conflict() ? " (the pod kept changing over " + attempts + " attempts)" : "")));
                }
                try {
                    api.bind(key, podUid, node);
                } catch (PodApi.Failure f) {
                    if (f.conflict()) {
                        Pod now = api.get(key);
                        if (now != null && node.equals(PodTranslator.nodeName(now))) {
                            ledger.confirmBound(key, node);
                            return new BindOutcome.Bound(booked, true);
                        }
                    }
                    if (mine != null) unannotate(key);
                    return release(mine, new BindOutcome.Failed("api_error", f.getMessage()));
                }
                if (!ledger.confirmBound(key, node))
                    LOG.log(Level.WARNING, "bind pod={0} node={1}: bound, but the ledger no longer holds its booking there; the pod watch will restore it", key, node);
                return new BindOutcome.Bound(booked.withPhase(Phase.BOUND), false);
            }
        } catch (PodApi.Failure f) {
            return release(mine, new BindOutcome.Failed("api_error", f.getMessage()));
        } catch (RuntimeException e) {
            LOG.log(Level.ERROR, "bind pod=" + key + " node=" + node + " failed unexpectedly", e);
            return release(mine, new BindOutcome.Failed("internal", "bind of pod " + key + " failed: " + e));
        }
    }

    /** The pod is on {@code node} already: make sure the ledger knows its allocation, answer success. */
    private BindOutcome alreadyBound(PodKey key, Pod pod, String node) {
        Optional<Allocation> have = ledger.allocation(key);
        if (have.isPresent() && have.get().node().equals(node)) {
            ledger.confirmBound(key, node);
            return new BindOutcome.Bound(have.get(), true);
        }
        NodeState s = ledger.node(node);
        try {
            var info = PodTranslator.facts(pod).toPodInfo(verbs.unit());
            var decoded = AllocationCodec.decode(info, PodTranslator.annotations(pod), node, s == null ? null : s.inventory(), true, verbs.unit());
            if (decoded instanceof AllocationCodec.Decoded.Found f) {
                ledger.restore(f.allocation());
                return new BindOutcome.Bound(f.allocation(), true);
            }
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "bind pod={0} node={1}: already bound, allocation unreadable: {2}", key, node, e.getMessage());
        }
        return new BindOutcome.Bound(null, true);
    }

    private BindOutcome release(Allocation mine, BindOutcome.Failed failed) {
        if (mine != null) {
            Optional<Allocation> now = ledger.allocation(mine.pod());
            if (now.isPresent() && now.get().samePlacement(mine) && now.get().phase() == Phase.ASSUMED) ledger.release(mine.pod());
        }
        return failed;
    }

    private void unannotate(PodKey key) {
        Map<String, String> clear = new LinkedHashMap<>();
        for (String k : ANNOTATION_KEYS) clear.put(k, null);
        try {
            api.patchAnnotations(key, null, clear);
        } catch (PodApi.Failure f) {
            LOG.log(Level.WARNING, "bind pod={0}: could not remove the allocation annotations after a failed bind: {1}", key, f.getMessage());
        }
    }

    /** Any allocation, only to learn the annotation keys the codec writes. */
    private static Allocation sample() {
        var d = io.mpshare.core.model.GpuDemand.simple(1, 0, 1, 0);
        return new Allocation(PodKey.of("x", "x"), "", "x", java.util.List.of(0), java.util.List.of("x"), d, java.time.Instant.EPOCH, Phase.ASSUMED);
    }
}
