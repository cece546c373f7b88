package io.mpshare.core.ledger;

import io.mpshare.core.model.GpuDemand;
import io.mpshare.core.model.NodeInventory;
import io.mpshare.core.model.PodKey;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiFunction;
import java.util.function.Predicate;

/**
 * The cluster-wide (or host-wide) book of GPU allocations. The lifecycle of each entry is the state
 * machine in {@link Phase}.
 *
 * <p>Implementation notes.
 * <ul>
 * <li>State: {@code nodes} maps a node name to an immutable {@link NodeState}; {@code pods} indexes
 *     each booked pod's {@link Allocation}. Readers (filter, prioritize, inspect) take a snapshot with a
 *     plain volatile read and never block.</li>
 * <li>Writers serialise per pod, then per node: every mutation runs inside {@code pods.compute(pod)}
 *     and, nested, {@code computeNode(node)} — always in that order, so two writers never deadlock.
 *     The fit check and the booking happen in the same node-level compute, so concurrent assumes on
 *     one node can never over-commit a GPU, and no lock is ever held across I/O: callers do their
 *     API calls after assume returns and call {@link #release} to roll back.</li>
 * <li>Idempotence: assuming an identical placement again returns {@link AssumeResult.AlreadyPlaced};
 *     confirming, assigning or releasing twice changes nothing. A refused assume changes nothing either:
 *     a move books the new place before it frees the old one (for that instant the pod is counted
 *     twice, which can refuse a neighbour but never over-commit).</li>
 * <li>Unknown nodes: {@link #restore} and the phase changes keep bookings in the pod index even when
 *     the node has not published its inventory yet; {@link #upsertNode} picks them up when it does,
 *     and a booking published while the node was being added is re-applied afterwards.</li>
 * <li>Time comes from an injected {@link InstantSource}; the assume TTL is checked only when
 *     {@link #expireAssumed} is called, and only for entries the caller says are no longer wanted.</li>
 * </ul>
 */
public final class Ledger {
    private final InstantSource clock;
    private final Duration assumeTtl;
    private final ConcurrentHashMap<String, NodeState> nodes = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<PodKey, Allocation> pods = new ConcurrentHashMap<>();
    private final FitIndex index = new FitIndex();
    private volatile RoomListener roomListener = RoomListener.NONE;

    public Ledger(InstantSource clock, Duration assumeTtl) {
        this.clock = Objects.requireNonNull(clock, "clock");
        this.assumeTtl = Objects.requireNonNull(assumeTtl, "assumeTtl");
        if (assumeTtl.isNegative()) throw new IllegalArgumentException("assume TTL must not be negative, got " + assumeTtl);
    }

    public InstantSource clock() { return clock; }

    /** Adds a node or replaces its inventory; bookings on it are kept. */
    public void upsertNode(NodeInventory inventory) {
        computeNode(inventory.node(), (k, s) -> {
            if (s == null) {
                NodeState fresh = NodeState.empty(inventory);
                for (Allocation a : pods.values()) if (a.node().equals(k)) fresh = fresh.with(a);
                return fresh;
            }
            return s.inventory().equals(inventory) ? s : s.withInventory(inventory);
        });
    }

    /** Forgets a node's inventory. Its bookings stay in the pod index until their pods are released. */
    public void removeNode(String node) { computeNodeIfPresent(node, (k, s) -> null); }

    /**
     * The filter's index over every known node (name → per-GPU fit keys), kept current with each change of
     * a node's snapshot; read without locks.
     */
    public FitIndex fitIndex() { return index; }

    /**
     * Tells {@code l} of every node whose room may have grown ({@link RoomListener}); one listener, replacing the last.
     * The extender wakes the pods it refused for lack of room through it.
     */
    public void onRoomGrew(RoomListener l) { roomListener = Objects.requireNonNull(l, "listener"); }

    /**
     * Every change of a node's snapshot goes through here or {@link #computeNodeIfPresent}: the index follows under the
     * same lock, and the room listener is told once the new snapshot is published.
     */
    private NodeState computeNode(String node, BiFunction<String, NodeState, NodeState> f) {
        boolean[] grew = new boolean[1];
        NodeState out = nodes.compute(node, (k, s) -> {
            NodeState next = f.apply(k, s);
            if (next != s) {
                index.update(k, next);
                grew[0] = next != null && next.roomGrewSince(s);
            }
            return next;
        });
        if (grew[0]) roomListener.roomGrew(node);
        return out;
    }

    private NodeState computeNodeIfPresent(String node, BiFunction<String, NodeState, NodeState> f) {
        boolean[] grew = new boolean[1];
        NodeState out = nodes.computeIfPresent(node, (k, s) -> {
            NodeState next = f.apply(k, s);
            if (next != s) {
                index.update(k, next);
                grew[0] = next != null && next.roomGrewSince(s);
            }
            return next;
        });
        if (grew[0]) roomListener.roomGrew(node);
        return out;
    }

    public NodeState node(String name) { return nodes.get(name); }

    public Collection<NodeState> nodes() { return nodes.values(); }

    public Optional<Allocation> allocation(PodKey pod) { return Optional.ofNullable(pods.get(pod)); }

    public Collection<Allocation> allocations() { return pods.values(); }

    /**
     * Books the GPUs {@code chooser} picks on {@code node} for {@code pod}, in phase ASSUMED.
     * A pod already ASSUMED elsewhere (or on the same node with another demand) moves, but only once the
     * new place fits: a refusal leaves the ledger exactly as it was. A pod BOUND or ASSIGNED elsewhere is
     * refused; the same demand on the same node again answers AlreadyPlaced. An entry recorded under a
     * different, non-empty pod UID belongs to an earlier pod of the same name (deleted and created again,
     * as StatefulSets do) and is replaced whatever its phase.
     */
    public AssumeResult assume(PodKey pod, String podUid, String node, GpuDemand demand, GpuChooser chooser) {
        AssumeResult[] out = new AssumeResult[1];
        String uid = podUid == null ? "" : podUid;
        pods.compute(pod, (k, existing) -> {
            boolean stale = existing != null && !uid.isEmpty() && !existing.podUid().isEmpty() && !existing.podUid().equals(uid);
            if (existing != null && !stale) {
                if (existing.node().equals(node) && existing.demand().equals(demand)) {
                    out[0] = new AssumeResult.AlreadyPlaced(existing);
                    return existing;
                }
                if (existing.phase() != Phase.ASSUMED) {
                    out[0] = new AssumeResult.Rejected("pod " + pod + " is already bound to node " + existing.node()
                            + " on GPU " + existing.gpuIndices() + "; delete the pod to place it again");
                    return existing;
                }
            }
            Allocation[] booked = new Allocation[1];
            computeNode(node, (n, s) -> {
                if (s == null) {
                    out[0] = new AssumeResult.Rejected("node " + node + " is not known to mpshare: it publishes no GPU inventory "
                            + "(is the mpshare device plugin running there and the node labelled ack.node.gpu.schedule=mps?)");
                    return null;
                }
                NodeState base = existing != null && existing.node().equals(n) ? s.without(k) : s;
                switch (chooser.choose(base, demand)) {
                    case GpuChooser.Choice.Chosen f when misfit(base, demand, f.positions()) instanceof String why -> {
                        out[0] = new AssumeResult.Rejected(why);
                        return s;
                    }
                    case GpuChooser.Choice.Chosen f -> {
                        List<Integer> idx = new ArrayList<>(f.positions().length);
                        List<String> uuids = new ArrayList<>(f.positions().length);
                        for (int pos : f.positions()) { idx.add(base.gpu(pos).index()); uuids.add(base.gpu(pos).uuid()); }
                        booked[0] = new Allocation(pod, uid, node, idx, uuids, demand, clock.instant(), Phase.ASSUMED);
                        out[0] = new AssumeResult.Assumed(booked[0]);
                        return base.with(booked[0]);
                    }
                    case GpuChooser.Choice.Refused r -> { out[0] = new AssumeResult.Rejected(r.reason()); return s; }
                }
            });
            if (booked[0] == null) return existing; // refused: nothing changes
            if (existing != null && !existing.node().equals(node)) computeNodeIfPresent(existing.node(), (n, s) -> s.without(k));
            return booked[0];
        });
        return out[0];
    }

    /**
     * Why {@code positions} cannot take {@code demand} on {@code s}, or null when they can: as many distinct, usable
     * GPUs as asked, each with the charge's memory and cores free. The ledger checks what any chooser picked, under the
     * node's lock, so a fault in a placement policy (or an evaluation remembered past its snapshot) is a refused bind,
     * which kube-scheduler retries, and never an over-committed GPU.
     */
    static String misfit(NodeState s, GpuDemand demand, int[] positions) {
        if (positions.length != demand.gpuCount())
            return "the placement chose " + positions.length + " GPU(s) on node " + s.name() + " for a pod of " + demand.gpuCount() + ": refused";
        for (int i = 0; i < positions.length; i++) {
            int pos = positions[i];
            if (pos < 0 || pos >= s.gpuCount()) return "the placement chose no GPU of node " + s.name() + " (position " + pos + "): refused";
            for (int j = 0; j < i; j++)
                if (positions[j] == pos) return "the placement chose GPU " + s.gpuIndex(pos) + " of node " + s.name() + " twice: refused";
            if (!s.usable(pos)) return "GPU " + s.gpuIndex(pos) + " of node " + s.name() + " is unhealthy: refused";
            if (s.totalMib(pos) - s.allocatedMib(pos) < demand.chargeMib() || s.freeCore(pos) < demand.chargeCore())
                return "GPU " + s.gpuIndex(pos) + " of node " + s.name() + " has " + (s.totalMib(pos) - s.allocatedMib(pos)) + " MiB and "
                        + s.freeCore(pos) + " % of cores free, less than the pod's " + demand.chargeMib() + " MiB and " + demand.chargeCore()
                        + " %: refused (the placement chose it on an older view; kube-scheduler tries the pod again)";
        }
        return null;
    }

    /**
     * Records an allocation exactly as given (phase and GPUs included), without a fit check: this is how
     * a rebuild from pod annotations restores what the cluster really holds. Replaces any earlier entry.
     */
    public void restore(Allocation a) {
        boolean[] nodeKnown = new boolean[1];
        pods.compute(a.pod(), (k, existing) -> {
            // on the same node the new entry replaces the old in one step (NodeState.with): removing it first would show
            // its room free, between two node locks, to a concurrent assume, which then books it twice
            if (existing != null && !existing.node().equals(a.node())) computeNodeIfPresent(existing.node(), (n, s) -> s.without(k));
            computeNodeIfPresent(a.node(), (n, s) -> { nodeKnown[0] = true; return s.with(a); });
            return a;
        });
        if (!nodeKnown[0]) catchUp(a);
    }

    /**
     * Closes a race with {@link #upsertNode}: a booking written while its node was unknown may have been
     * published after the new node scanned the pod index. Re-applies it if it is still the pod's current one.
     * Safe because a writer that removes the booking must pass through the same node lock afterwards.
     */
    private void catchUp(Allocation a) {
        computeNodeIfPresent(a.node(), (n, s) -> pods.get(a.pod()) == a && s.pods().get(a.pod()) != a ? s.with(a) : s);
    }

    /** ASSUMED → BOUND once the annotation and Binding are written. False when the pod is not booked on {@code node}. */
    public boolean confirmBound(PodKey pod, String node) { return advance(pod, node, Phase.BOUND); }

    /** → ASSIGNED once the device plugin answered Allocate. False when the pod is not booked on {@code node}. */
    public boolean markAssigned(PodKey pod, String node) { return advance(pod, node, Phase.ASSIGNED); }

    private boolean advance(PodKey pod, String node, Phase to) {
        boolean[] ok = new boolean[1];
        Allocation[] moved = new Allocation[1];
        pods.computeIfPresent(pod, (k, a) -> {
            if (!a.node().equals(node)) return a;
            ok[0] = true;
            if (a.phase().compareTo(to) >= 0) return a;
            Allocation next = a.withPhase(to);
            moved[0] = next;
            computeNodeIfPresent(node, (n, s) -> { moved[0] = null; return s.with(next); });
            return next;
        });
        if (moved[0] != null) catchUp(moved[0]);
        return ok[0];
    }

    /** Frees the pod's booking; returns what was freed (empty when nothing was booked). */
    public Optional<Allocation> release(PodKey pod) {
        Allocation[] gone = new Allocation[1];
        pods.computeIfPresent(pod, (k, a) -> {
            computeNodeIfPresent(a.node(), (n, s) -> s.without(k));
            gone[0] = a;
            return null;
        });
        return Optional.ofNullable(gone[0]);
    }

    /**
     * Releases ASSUMED entries older than the TTL for which {@code stillWanted} answers false (for
     * example: the pod is gone, or bound to another node). Returns the released allocations.
     */
    public List<Allocation> expireAssumed(Predicate<Allocation> stillWanted) {
        Instant cutoff = clock.instant().minus(assumeTtl);
        List<Allocation> expired = new ArrayList<>();
        for (Allocation a : List.copyOf(pods.values())) {
            if (a.phase() == Phase.ASSUMED && a.assumedAt().isBefore(cutoff) && !stillWanted.test(a)) {
                pods.computeIfPresent(a.pod(), (k, cur) -> {
                    if (cur.phase() != Phase.ASSUMED || !cur.assumedAt().equals(a.assumedAt())) return cur;
                    computeNodeIfPresent(cur.node(), (n, s) -> s.without(k));
                    expired.add(cur);
                    return null;
                });
            }
        }
        return expired;
    }

    /** A comparable summary: per known node (sorted by name), the MiB booked on each GPU index. */
    public Map<String, Map<Integer, Long>> accounting() {
        var m = new TreeMap<String, Map<Integer, Long>>();
        for (NodeState s : nodes.values()) m.put(s.name(), s.allocatedByIndex());
        return m;
    }
}
