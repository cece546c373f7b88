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
import io.mpshare.scheduler.Verbs;
import io.mpshare.scheduler.cluster.FailedBinds;
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
 * <li>Order: claim the pod's pipelining hold → read the pod → refuse pods of another scheduler or with no GPU
 *     demand → resolve its demand → {@code assume} in the ledger (the hold's GPUs when kube-scheduler chose
 *     the held node, else the policy picks; fit check and booking are one atomic step per node) → PATCH the
 *     allocation annotations with the pod's resourceVersion → POST the Binding → {@code confirmBound}.
 *     Annotation first: the device plugin must find the allocation the moment kubelet sees the pod
 *     (docs/decisions/bind-order.md).</li>
 * <li>Concurrency: no lock is held across API calls. Concurrent binds to one node are safe because the
 *     ledger's assume checks and books under the node's entry; two binds of the same pod meet in the
 *     ledger (AlreadyPlaced) and at the API server (the second Binding answers 409).</li>
 * <li>Binding failures: the pod is read back before anything is undone. Bound to the asked node (a 409 of a
 *     retry, or a timeout after the Binding landed): success, nothing rolled back. Still pending: the booking
 *     this call owns (made now, or the claimed hold) is released at once and recorded in {@link FailedBinds}
 *     so the annotation's echo through the informer does not restore it; the annotations are removed. Not
 *     readable: the room is released, the annotations kept (if the Binding did land, the watch restores the
 *     booking as BOUND from them).</li>
 * <li>An ASSUMED booking this call does not own (restored from the annotation of a bind interrupted between
 *     PATCH and Binding) is reused when it names the asked node; the pod's filter never counts it against
 *     the pod, so it cannot keep its own pod pending.</li>
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
    private final BindChecks checks;
    private final FailedBinds failedBinds;

    public Binder(Ledger ledger, Verbs verbs, PodApi api, int attempts) {
        this(ledger, verbs, api, attempts, BindChecks.any(), new FailedBinds());
    }

    public Binder(Ledger ledger, Verbs verbs, PodApi api, int attempts, BindChecks checks, FailedBinds failedBinds) {
        this.ledger = ledger;
        this.verbs = verbs;
        this.api = api;
        this.attempts = attempts;
        this.checks = checks;
        this.failedBinds = failedBinds;
    }

    public BindOutcome bind(String namespace, String name, String uid, String node) {
        PodKey key;
        try { key = PodKey.of(namespace == null ? "" : namespace, name); }
        catch (RuntimeException e) { return new BindOutcome.Failed("bad_request", "the bind request names no pod"); }
        if (node == null || node.isEmpty()) return new BindOutcome.Failed("bad_request", "the bind request for pod " + key + " names no Node");
        Allocation held = verbs.holds().claim(key) ? ledger.allocation(key).filter(a -> a.phase() == Phase.ASSUMED).orElse(null) : null;
        BindOutcome out = attempt(key, uid == null ? "" : uid, node, held);
        switch (out) {
            case BindOutcome.Bound b when b.allocation() != null -> LOG.log(Level.INFO, "bind pod={0} node={1} gpus={2} mib={3} outcome={4}",
                    key, node, b.allocation().gpuIndices(), Long.toString(b.allocation().demand().chargeMib()), b.already() ? "already-bound" : "bound");
            case BindOutcome.Bound b -> LOG.log(Level.INFO, "bind pod={0} node={1} outcome=bound-without-gpu", key, node);
            case BindOutcome.Failed f -> LOG.log(Level.WARNING, "bind pod={0} node={1} outcome=failed reason={2} message={3}", key, node, f.reason(), f.message());
        }
        return out;
    }

    /** @param held the pod's pipelining hold this bind claimed (it owns that booking), or null */
    private BindOutcome attempt(PodKey key, String uid, String node, Allocation held) {
        Allocation mine = held; // the booking this call owns, to release on failure
        try {
            for (int i = 1; ; i++) {
                Pod pod = api.get(key);
                BindOutcome early = preflight(key, uid, node, pod);
                if (early instanceof BindOutcome.Failed f) return release(mine, f);
                if (early != null) return early;
                String podUid = PodTranslator.uid(pod);
                var g = (Verbs.Need.Gpu) verbs.need(PodTranslator.facts(pod));
                Allocation booked;
                switch (verbs.engine().assume(key, podUid, node, g.demand())) {
                    case AssumeResult.Assumed a -> { booked = a.allocation(); mine = booked; }
                    case AssumeResult.AlreadyPlaced a -> { booked = a.allocation(); if (held != null && held.samePlacement(booked)) mine = booked; }
                    case AssumeResult.Rejected r -> { return release(mine, new BindOutcome.Failed("no_room", "node " + node + ": " + r.reason())); }
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
                    return afterBindingFailed(key, node, booked, mine, f);
                }
                return confirmed(key, node, booked, false);
            }
        } catch (PodApi.Failure f) {
            return release(mine, new BindOutcome.Failed("api_error", f.getMessage()));
        } catch (RuntimeException e) {
            LOG.log(Level.ERROR, "bind pod=" + key + " node=" + node + " failed unexpectedly", e);
            return release(mine, new BindOutcome.Failed("internal", "bind of pod " + key + " failed: " + e));
        }
    }

    /** The checks before booking: a failure, an answer for a pod already bound, or null to go on. */
    private BindOutcome preflight(PodKey key, String uid, String node, Pod pod) {
        if (pod == null) return new BindOutcome.Failed("pod_not_found", "pod " + key + " does not exist (deleted while it was being scheduled?)");
        String podUid = PodTranslator.uid(pod);
        if (!uid.isEmpty() && !podUid.isEmpty() && !uid.equals(podUid))
            return new BindOutcome.Failed("uid_mismatch", "pod " + key + " now has UID " + podUid + ", not " + uid
                    + ": it was deleted and created again; kube-scheduler will schedule the new one");
        String other = checks.otherScheduler(key, pod);
        if (other != null) return new BindOutcome.Failed("not_ours", other);
        String boundTo = PodTranslator.nodeName(pod);
        if (boundTo != null) {
            if (!boundTo.equals(node)) return new BindOutcome.Failed("bound_elsewhere", "pod " + key + " is already bound to node " + boundTo + ", not " + node);
            return alreadyBound(key, pod, node);
        }
        return switch (verbs.need(PodTranslator.facts(pod))) {
            case Verbs.Need.Bad b -> new BindOutcome.Failed("bad_pod", b.reason());
            case Verbs.Need.None n -> new BindOutcome.Failed("not_ours", BindChecks.noGpu(key));
            case Verbs.Need.Gpu g -> null;
        };
    }

    /**
     * The Binding call failed: read the pod back before undoing anything. It may have landed (a timeout after
     * the API server wrote it, or a 409 of our own earlier attempt).
     */
    private BindOutcome afterBindingFailed(PodKey key, String node, Allocation booked, Allocation mine, PodApi.Failure f) {
        Pod now;
        try {
            now = api.get(key);
        } catch (PodApi.Failure again) {
            return release(mine, new BindOutcome.Failed("api_error", f.getMessage() + "; reading the pod back failed too (" + again.getMessage()
                    + "), so its annotations are kept: if the Binding landed, the pod watch books it"));
        }
        if (now != null && node.equals(PodTranslator.nodeName(now))) return confirmed(key, node, booked, true);
        if (mine != null && now != null && PodTranslator.nodeName(now) == null) unannotate(key);
        return release(mine, new BindOutcome.Failed("api_error", f.getMessage()));
    }

    /** The Binding exists: BOUND in the ledger (restored if something released the booking meanwhile). */
    private BindOutcome confirmed(PodKey key, String node, Allocation booked, boolean already) {
        Allocation bound = booked.withPhase(Phase.BOUND);
        if (!ledger.confirmBound(key, node)) {
            LOG.log(Level.WARNING, "bind pod={0} node={1}: bound, but the ledger no longer held its booking there; booked again as bound", key, node);
            ledger.restore(bound);
        }
        return new BindOutcome.Bound(bound, already);
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

    /** Frees the booking this call owns at once (and keeps the informer from bringing it back). */
    private BindOutcome release(Allocation mine, BindOutcome.Failed failed) {
        if (mine != null) {
            Optional<Allocation> now = ledger.allocation(mine.pod());
            if (now.isPresent() && now.get().samePlacement(mine) && now.get().phase() == Phase.ASSUMED) {
                ledger.release(mine.pod());
                failedBinds.released(now.get());
            }
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
