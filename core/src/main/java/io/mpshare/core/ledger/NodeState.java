package io.mpshare.core.ledger;

import io.mpshare.core.model.Gpu;
import io.mpshare.core.model.NodeInventory;
import io.mpshare.core.model.PodKey;
import io.mpshare.core.model.ServingDomain;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.TreeMap;

/**
 * Immutable snapshot of one node: its GPUs, what is booked on each, and the allocations that book it.
 *
 * <p>Implementation notes: arrays are indexed by <em>position</em> in {@code inventory.gpus()} (sorted by
 * NVML index), so policies can scan them without boxing: a filter over 5,000 nodes touches only
 * {@link #freeMib(int)}, {@link #freeCore(int)} and {@link #usable(int)}. Every change returns a new
 * snapshot; the {@link Ledger} swaps it in atomically. Free memory may go negative only when a rebuild
 * restores what the cluster really holds (for example pods placed by another scheduler); assume never
 * makes it negative.
 */
public final class NodeState {
    private final NodeInventory inventory;
    private final Layout layout;
    private final long[] allocMib;
    private final int[] allocCore;
    private final Map<PodKey, Allocation> pods;
    private final Map<Long, Integer> uids;
    private final long maxFreeMib;
    private final long usableFreeMib;
    private final long maxOpenFreeMib;
    /** Per position: (free MiB << 7) | free cores, or -1 when the GPU is unhealthy or over-booked. One array for the hot path. */
    private final long[] fitKeys;
    /** The domains per GPU, for the domain cost; built lazily (see {@link #census()}). */
    private Census census;

    /** Per-position facts of an inventory, shared by every snapshot over it: read on the hot path without boxing. */
    private record Layout(int[] index, long[] totalMib, boolean[] healthy) {
        static Layout of(NodeInventory inv) {
            List<Gpu> g = inv.gpus();
            int n = g.size();
            int[] index = new int[n];
            long[] total = new long[n];
            boolean[] healthy = new boolean[n];
            for (int i = 0; i < n; i++) { index[i] = g.get(i).index(); total[i] = g.get(i).totalMib(); healthy[i] = g.get(i).healthy(); }
            return new Layout(index, total, healthy);
        }
    }

    private NodeState(NodeInventory inventory, Layout layout, long[] allocMib, int[] allocCore,
                      Map<PodKey, Allocation> pods, Map<Long, Integer> uids) {
        this.inventory = inventory;
        this.layout = layout;
        this.allocMib = allocMib;
        this.allocCore = allocCore;
        this.pods = pods;
        this.uids = uids;
        long max = Long.MIN_VALUE, sum = 0, open = -1;
        long[] keys = new long[allocMib.length];
        for (int i = 0; i < allocMib.length; i++) {
            long free = layout.totalMib[i] - allocMib[i];
            boolean healthy = layout.healthy[i];
            keys[i] = healthy && free >= 0 && allocCore[i] <= 100 ? (free << 7) | (100 - allocCore[i]) : -1;
            if (keys[i] >= 0) open = Math.max(open, free);
            if (!healthy) continue;
            max = Math.max(max, free);
            sum += Math.max(0, free);
        }
        this.fitKeys = keys;
        this.maxFreeMib = max;
        this.usableFreeMib = sum;
        this.maxOpenFreeMib = open;
    }

    public static NodeState empty(NodeInventory inventory) {
        int n = inventory.gpus().size();
        return new NodeState(inventory, Layout.of(inventory), new long[n], new int[n], Map.of(), Map.of());
    }

    /** The same bookings over a new inventory (GPUs appeared, vanished or changed health). */
    NodeState withInventory(NodeInventory inv) {
        NodeState s = empty(inv);
        for (Allocation a : pods.values()) s = s.with(a);
        return s;
    }

    NodeState with(Allocation a) {
        NodeState base = pods.containsKey(a.pod()) ? without(a.pod()) : this;
        var p = new HashMap<>(base.pods);
        p.put(a.pod(), a);
        long[] mib = base.allocMib.clone();
        int[] core = base.allocCore.clone();
        charge(a, mib, core, +1);
        return new NodeState(inventory, layout, mib, core, Collections.unmodifiableMap(p), adjustUid(base.uids, a, +1));
    }

    NodeState without(PodKey pod) {
        Allocation a = pods.get(pod);
        if (a == null) return this;
        var p = new HashMap<>(pods);
        p.remove(pod);
        long[] mib = allocMib.clone();
        int[] core = allocCore.clone();
        charge(a, mib, core, -1);
        return new NodeState(inventory, layout, mib, core, Collections.unmodifiableMap(p), adjustUid(uids, a, -1));
    }

    /** Exact sums: a booking restored as written can carry any charge, and a wrapped sum would show room that is not there. */
    private void charge(Allocation a, long[] mib, int[] core, int sign) {
        for (int idx : a.gpuIndices()) {
            int pos = position(idx);
            if (pos < 0) continue; // GPU vanished from the inventory: the booking stays visible in pods()
            mib[pos] = Math.addExact(mib[pos], Math.multiplyExact(sign, a.demand().chargeMib()));
            core[pos] = Math.addExact(core[pos], sign * a.demand().chargeCore());
        }
    }

    /**
     * Whether this snapshot may take something {@code before} could not: it is new, its inventory changed, or some GPU
     * has less booked than before (memory or cores).
     */
    boolean roomGrewSince(NodeState before) {
        if (before == null || !inventory.equals(before.inventory)) return true;
        for (int i = 0; i < allocMib.length; i++) if (allocMib[i] < before.allocMib[i] || allocCore[i] < before.allocCore[i]) return true;
        return false;
    }

    /** Only pods of the node daemon count: a {@code tenant} or {@code pod} domain has a daemon of its own. */
    private static Map<Long, Integer> adjustUid(Map<Long, Integer> uids, Allocation a, int sign) {
        OptionalLong uid = a.demand().runAsUser();
        if (uid.isEmpty() || !a.demand().domain().onNodeDaemon()) return uids;
        var m = new HashMap<>(uids);
        m.merge(uid.getAsLong(), sign, Integer::sum);
        m.values().removeIf(v -> v <= 0);
        return Collections.unmodifiableMap(m);
    }

    public NodeInventory inventory() { return inventory; }
    public String name() { return inventory.node(); }
    public int gpuCount() { return allocMib.length; }
    /** NVML index of the GPU at {@code pos}. */
    public int gpuIndex(int pos) { return layout.index[pos]; }
    public Gpu gpu(int pos) { return inventory.gpus().get(pos); }
    public long totalMib(int pos) { return layout.totalMib[pos]; }
    public long allocatedMib(int pos) { return allocMib[pos]; }
    public int allocatedCore(int pos) { return allocCore[pos]; }
    public long freeMib(int pos) {
        long k = fitKeys[pos];
        return k >= 0 ? k >>> 7 : layout.totalMib[pos] - allocMib[pos];
    }
    public int freeCore(int pos) { return 100 - allocCore[pos]; }
    /** The GPU's fit key: (free MiB << 7) | free cores, or -1 when it can take nothing (unhealthy or over-booked). */
    long fitKey(int pos) { return fitKeys[pos]; }
    public boolean usable(int pos) { return layout.healthy[pos]; }
    /** Largest free memory on a healthy GPU, Long.MIN_VALUE when none is healthy. */
    public long maxFreeMib() { return maxFreeMib; }
    /**
     * Largest free memory on a GPU that can take a client now (healthy, not over-booked in memory or
     * cores), -1 when none can. A one-GPU demand without a core share fits exactly when it is at most this.
     */
    public long maxOpenFreeMib() { return maxOpenFreeMib; }
    /** Free memory summed over healthy GPUs, each counted from 0 (an over-booked GPU adds nothing). */
    public long usableFreeMib() { return usableFreeMib; }
    public Map<PodKey, Allocation> pods() { return pods; }

    /** This node as it would be without {@code pod}'s booking (itself when the pod has none here). */
    public NodeState exceptPod(PodKey pod) { return pods.containsKey(pod) ? without(pod) : this; }
    /**
     * Known Linux UIDs of the node's booked pods served by the node daemon (the one-UID-per-daemon rule's question),
     * with how many pods run as each; pods of {@code tenant} and {@code pod} domains are not counted.
     */
    public Map<Long, Integer> uids() { return uids; }

    /**
     * The MPS daemons that serve booked pods on the GPU at {@code pos}: one per distinct {@link ServingDomain} among
     * the pods booked there.
     */
    public int domainsOn(int pos) {
        Census c = census();
        return c.only != null ? (allocMib[pos] != 0 ? 1 : 0) : c.domains[pos].length;
    }

    /** Whether {@code domain}'s daemon already serves a booked pod on the GPU at {@code pos}. */
    public boolean runsOn(int pos, ServingDomain domain) {
        Census c = census();
        if (c.only != null) return allocMib[pos] != 0 && c.only.equals(domain);
        for (ServingDomain d : c.domains[pos]) if (d.equals(domain)) return true;
        return false;
    }

    /**
     * The one serving domain of every pod booked here, or null when there are none or several: then a pod of that
     * domain costs no GPU of the node a daemon, and placement need not weigh daemons here at all.
     */
    public ServingDomain onlyDomain() { return pods.isEmpty() ? null : census().only; }

    /** Whether any pod is booked here (a node without bookings runs no domain daemon: every GPU costs the same). */
    public boolean hasBookings() { return !pods.isEmpty(); }

    /** Distinct serving domains per position, built on first use (prioritize and bind ask, the filter never does). */
    private Census census() {
        Census c = census;
        if (c == null) census = c = Census.of(this);
        return c;
    }

    /**
     * Immutable once built; a race builds it twice with the same content (final fields publish it safely). Most nodes
     * serve one domain (a cluster without fault domains: the node daemon alone): then only that domain is kept.
     */
    private static final class Census {
        final ServingDomain only;
        final ServingDomain[][] domains;

        private Census(ServingDomain only, ServingDomain[][] domains) { this.only = only; this.domains = domains; }

        static Census of(NodeState s) {
            ServingDomain first = null;
            boolean one = true;
            for (Allocation a : s.pods.values()) {
                ServingDomain d = a.demand().domain();
                if (first == null) first = d;
                else if (d != first && !d.equals(first)) { one = false; break; }
            }
            int n = s.gpuCount();
            if (first == null) {   // no pod booked: no daemon on any GPU
                ServingDomain[][] none = new ServingDomain[n][];
                Arrays.fill(none, new ServingDomain[0]);
                return new Census(null, none);
            }
            if (one) return new Census(first, null);
            var sets = new ArrayList<LinkedHashSet<ServingDomain>>(n);
            for (int i = 0; i < n; i++) sets.add(new LinkedHashSet<>());
            for (Allocation a : s.pods.values())
                for (int idx : a.gpuIndices()) {
                    int pos = s.position(idx);
                    if (pos >= 0) sets.get(pos).add(a.demand().domain());
                }
            ServingDomain[][] d = new ServingDomain[n][];
            for (int i = 0; i < n; i++) d[i] = sets.get(i).toArray(ServingDomain[]::new);
            return new Census(null, d);
        }
    }

    /**
     * The one healthy GPU with room for {@code needMib} and {@code needCore}% that has the least free memory
     * ({@code most = false}, best fit) or the most ({@code most = true}, worst fit); ties go to the lower
     * position. Returns its position, or -1 when no GPU has room. Reads one array and allocates nothing:
     * this is what filter and prioritize over thousands of nodes spend their time in.
     */
    public int pickOne(long needMib, int needCore, boolean most) {
        long[] keys = fitKeys;
        long best = 0;
        int bestPos = -1;
        for (int i = 0; i < keys.length; i++) {
            long k = keys[i];
            if (k < 0 || (k & 127) < needCore) continue;
            long free = k >>> 7;
            if (free < needMib) continue;
            if (bestPos < 0 || (most ? free > best : free < best)) { best = free; bestPos = i; }
        }
        return bestPos;
    }

    /** Position of the GPU with NVML index {@code index} in the arrays, -1 when the node has none. */
    public int position(int index) {
        int[] idx = layout.index;
        for (int i = 0; i < idx.length; i++) if (idx[i] == index) return i;
        return -1;
    }

    public long totalMib() { return inventory.totalMib(); }

    public long allocatedMib() {
        long t = 0;
        for (long m : allocMib) t += m;
        return t;
    }

    /** Allocated MiB per GPU index, for comparisons and reports. */
    public Map<Integer, Long> allocatedByIndex() {
        var m = new TreeMap<Integer, Long>();
        for (int i = 0; i < allocMib.length; i++) m.put(layout.index[i], allocMib[i]);
        return m;
    }

    @Override public String toString() { return "NodeState[" + name() + ", allocated=" + allocatedByIndex() + ", pods=" + pods.keySet() + "]"; }
}
