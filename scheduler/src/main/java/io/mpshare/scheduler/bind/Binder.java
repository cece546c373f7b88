package io.mpshare.scheduler.bind;

import io.mpshare.core.codec.AllocationCodec;
import io.mpshare.core.ledger.Allocation;
import io.mpshare.core.ledger.AssumeResult;
import io.mpshare.core.ledger.Ledger;
import io.mpshare.core.ledger.NodeState;
import io.mpshare.core.ledger.Phase;
import io.mpshare.core.model.PodKey;
import io.mpshare.core.policy.PlacementEngine;
import io.mpshare.kube.KubePod;
import io.mpshare.kube.PodApi;
import io.mpshare.scheduler.cycle.Ask;
import io.mpshare.scheduler.cycle.AskReader;
import io.mpshare.scheduler.cycle.HeldRoom;
import io.mpshare.scheduler.cycle.PipelineHolds;

import java.util.Optional;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Binds a pod to the node kube-scheduler chose, and books its GPUs.
 *
 * <p>Implementation notes.
 * <ul>
 * <li>Order: claim the pod's pipelining hold → the pod (the informer's copy when it is unbound and has the UID
 *     kube-scheduler sent, {@link PendingPods}; else read from the API server) → refuse pods of another scheduler →
 *     read its {@link Ask} once (refuse a pod with no GPU demand or a bad one) → {@code assume} in the ledger (the
 *     hold's GPUs when kube-scheduler chose the held node, else the policy picks; fit check and booking are one atomic
 *     step per node) → POST the Binding carrying the allocation annotations (the API server writes them with
 *     {@code spec.nodeName} in one update, guarded by the pod's UID) → {@code confirmBound}. One write: the device
 *     plugin finds the allocation the moment kubelet sees the pod (docs/decisions/bind-order.md).</li>
 * <li>Concurrency: no lock is held across API calls. Concurrent binds to one node are safe because the
 *     ledger's assume checks and books under the node's entry; two binds of the same pod meet in the
 *     ledger (AlreadyPlaced) and at the API server (the second Binding answers 409).</li>
 * <li>Binding failures: the pod is read back before anything is undone. Bound to the asked node (a 409 of a
 *     retry, or a timeout after the Binding landed): success, nothing rolled back. Still pending: nothing was
 *     written; the booking this call owns (made now, or the claimed hold) is released at once. Not readable: the
 *     room is released (if the Binding did land, the watch restores the booking as BOUND from the annotations it
 *     carried).</li>
 * <li>An ASSUMED booking of the pod that this call does not own (another bind of the same pod in flight) is reused
 *     when it names the asked node, and not released by this call; the API server lets only one Binding land.</li>
 * </ul>
 */
public final class Binder {
    private static final Logger LOG = Logger.getLogger(Binder.class.getName());
    private final Ledger ledger;
    private final PlacementEngine engine;
    private final PipelineHolds holds;
    private final AskReader asks;
    private final PodApi api;
    private final BindChecks checks;
    private final PendingPods pending;
    private final HeldRoom heldRoom;

    /**
     * @param holds   the pipelining holds a bind claims
     * @param asks    reads the pod's ask (and names the unit its allocation annotations are written in)
     * @param checks  which pods this extender binds
     * @param pending the pod informer's unbound pods: a bind starts from its copy when it has the pod, else reads the
     *                API server ({@link PendingPods#none} to always read)
     */
    public Binder(PlacementEngine engine, PipelineHolds holds, AskReader asks, PodApi api, BindChecks checks, PendingPods pending) {
        this(engine, holds, asks, api, checks, pending, HeldRoom.NONE);
    }

    /**
     * @param held room that pods nominated by preemption hold: a bind that would take it from a pod of equal or higher
     *             priority is refused ({@link HeldRoom})
     */
    public Binder(PlacementEngine engine, PipelineHolds holds, AskReader asks, PodApi api, BindChecks checks, PendingPods pending, HeldRoom held) {
        this.heldRoom = held;
        this.ledger = engine.ledger();
        this.engine = engine;
        this.holds = holds;
        this.asks = asks;
        this.api = api;
        this.checks = checks;
        this.pending = pending;
    }

    public BindOutcome bind(String namespace, String name, String uid, String node) {
        PodKey key;
        try { key = PodKey.of(namespace == null ? "" : namespace, name); }
        catch (RuntimeException e) { return new BindOutcome.Failed("bad_request", "the bind request names no pod"); }
        if (node == null || node.isEmpty()) return new BindOutcome.Failed("bad_request", "the bind request for pod " + key + " names no Node");
        Allocation held = holds.claim(key) ? ledger.allocation(key).filter(a -> a.phase() == Phase.ASSUMED).orElse(null) : null;
        BindOutcome out = attempt(key, uid == null ? "" : uid, node, held);
        switch (out) {
            case BindOutcome.Bound b when b.allocation() != null -> LOG.log(Level.INFO, "bind pod={0} node={1} gpus={2} mib={3} outcome={4}",
                    new Object[] {key, node, b.allocation().gpuIndices(), Long.toString(b.allocation().demand().chargeMib()), b.already() ? "already-bound" : "bound"});
            case BindOutcome.Bound b -> LOG.log(Level.INFO, "bind pod={0} node={1} outcome=bound-without-gpu", new Object[] {key, node});
            case BindOutcome.Failed f -> LOG.log(Level.WARNING, "bind pod={0} node={1} outcome=failed reason={2} message={3}", new Object[] {key, node, f.reason(), f.message()});
        }
        return out;
    }

    /** @param held the pod's pipelining hold this bind claimed (it owns that booking), or null */
    private BindOutcome attempt(PodKey key, String uid, String node, Allocation held) {
        try {
            KubePod pod = pending.matching(key, uid); // the informer's copy of the pod kube-scheduler named, else a GET
            if (pod == null) pod = api.get(key);
            BindOutcome early = preflight(key, uid, node, pod);
            if (early instanceof BindOutcome.Failed f) return release(held, f);
            if (early != null) return early;
            return switch (asks.read(pod.facts())) {
                case Ask.Bad b -> release(held, new BindOutcome.Failed("bad_pod", b.reason()));
                case Ask.None n -> release(held, new BindOutcome.Failed("not_ours", BindChecks.noGpu(key)));
                case Ask.Gpu g -> book(key, pod.uid(), node, g, held);
            };
        } catch (PodApi.Failure f) {
            return release(held, new BindOutcome.Failed("api_error", f.getMessage()));
        } catch (RuntimeException e) {
            return failedUnexpectedly(key, node, held, e);
        }
    }

    /** The checks before the pod's ask is read: a failure, an answer for a pod already bound, or null to go on. */
    private BindOutcome preflight(PodKey key, String uid, String node, KubePod pod) {
        if (pod == null) return new BindOutcome.Failed("pod_not_found", "pod " + key + " does not exist (deleted while it was being scheduled?)");
        String podUid = pod.uid();
        if (!uid.isEmpty() && !podUid.isEmpty() && !uid.equals(podUid))
            return new BindOutcome.Failed("uid_mismatch", "pod " + key + " now has UID " + podUid + ", not " + uid
                    + ": it was deleted and created again; kube-scheduler will schedule the new one");
        String other = checks.otherScheduler(key, pod);
        if (other != null) return new BindOutcome.Failed("not_ours", other);
        String boundTo = pod.nodeName();
        if (boundTo != null) {
            if (!boundTo.equals(node)) return new BindOutcome.Failed("bound_elsewhere", "pod " + key + " is already bound to node " + boundTo + ", not " + node);
            return alreadyBound(key, pod, node);
        }
        return null;
    }

    /** Books the ask on {@code node}, POSTs the Binding, confirms; releases what this call owns when that fails. */
    private BindOutcome book(PodKey key, String podUid, String node, Ask.Gpu ask, Allocation held) {
        Allocation mine = held; // the booking this call owns, to release on failure
        try {
            String taken = heldRoom.active() ? heldRoom.refusal(ask, node) : null;
            if (taken != null) return release(mine, new BindOutcome.Failed("held", "node " + node + ": " + taken));
            Allocation booked;
            switch (engine.assume(key, podUid, node, ask.demand())) {
                case AssumeResult.Assumed a -> { booked = a.allocation(); mine = booked; }
                case AssumeResult.AlreadyPlaced a -> { booked = a.allocation(); if (held != null && held.samePlacement(booked)) mine = booked; }
                case AssumeResult.Rejected r -> { return release(mine, new BindOutcome.Failed("no_room", "node " + node + ": " + r.reason())); }
            }
            try {
                api.bind(key, podUid, node, AllocationCodec.encode(booked, asks.unit()));
            } catch (PodApi.Failure f) {
                return afterBindingFailed(key, node, booked, mine, f);
            }
            return confirmed(key, node, booked, false);
        } catch (RuntimeException e) {
            return failedUnexpectedly(key, node, mine, e);
        }
    }

    private BindOutcome failedUnexpectedly(PodKey key, String node, Allocation mine, RuntimeException e) {
        LOG.log(Level.SEVERE, "bind pod=" + key + " node=" + node + " failed unexpectedly", e);
        return release(mine, new BindOutcome.Failed("internal", "bind of pod " + key + " failed: " + e));
    }

    /**
     * The Binding call failed: read the pod back before undoing anything. It may have landed (a timeout after
     * the API server wrote it, or a 409 of our own earlier attempt).
     */
    private BindOutcome afterBindingFailed(PodKey key, String node, Allocation booked, Allocation mine, PodApi.Failure f) {
        KubePod now;
        try {
            now = api.get(key);
        } catch (PodApi.Failure again) {
            return release(mine, new BindOutcome.Failed("api_error", f.getMessage() + "; reading the pod back failed too (" + again.getMessage()
                    + "): if the Binding landed, the pod watch books it from the annotations it carried"));
        }
        if (now != null && node.equals(now.nodeName())) return confirmed(key, node, booked, true);
        return release(mine, new BindOutcome.Failed("api_error", f.getMessage()));
    }

    /** The Binding exists: BOUND in the ledger (restored if something released the booking meanwhile). */
    private BindOutcome confirmed(PodKey key, String node, Allocation booked, boolean already) {
        Allocation bound = booked.withPhase(Phase.BOUND);
        if (!ledger.confirmBound(key, node)) {
            LOG.log(Level.WARNING, "bind pod={0} node={1}: bound, but the ledger no longer held its booking there; booked again as bound", new Object[] {key, node});
            ledger.restore(bound);
        }
        return new BindOutcome.Bound(bound, already);
    }

    /** The pod is on {@code node} already: make sure the ledger knows its allocation, answer success. */
    private BindOutcome alreadyBound(PodKey key, KubePod pod, String node) {
        Optional<Allocation> have = ledger.allocation(key);
        if (have.isPresent() && have.get().node().equals(node)) {
            ledger.confirmBound(key, node);
            return new BindOutcome.Bound(have.get(), true);
        }
        NodeState s = ledger.node(node);
        try {
            var info = pod.info(asks.unit());
            var decoded = AllocationCodec.decode(info, pod.annotations(), node, s == null ? null : s.inventory(), true, asks.unit());
            if (decoded instanceof AllocationCodec.Decoded.Found f) {
                ledger.restore(f.allocation());
                return new BindOutcome.Bound(f.allocation(), true);
            }
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "bind pod={0} node={1}: already bound, allocation unreadable: {2}", new Object[] {key, node, e.getMessage()});
        }
        return new BindOutcome.Bound(null, true);
    }

    /** Frees the booking this call owns at once. */
    private BindOutcome release(Allocation mine, BindOutcome.Failed failed) {
        if (mine != null) {
            Optional<Allocation> now = ledger.allocation(mine.pod());
            if (now.isPresent() && now.get().samePlacement(mine) && now.get().phase() == Phase.ASSUMED) ledger.release(mine.pod());
        }
        return failed;
    }
}
