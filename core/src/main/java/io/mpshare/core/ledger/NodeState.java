package io.mpshare.core.ledger;

import io.mpshare.core.model.Gpu;
import io.mpshare.core.model.NodeInventory;
import io.mpshare.core.model.PodKey;

import java.util.Collections;
import java.util.HashMap;
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
    private final long[] allocMib;
    private final int[] allocCore;
    private final Map<PodKey, Allocation> pods;
    private final Map<Long, Integer> uids;
    private final long maxFreeMib;

    private NodeState(NodeInventory inventory, long[] allocMib, int[] allocCore, Map<PodKey, Allocation> pods, Map<Long, Integer> uids) {
        this.inventory = inventory;
        this.allocMib = allocMib;
        this.allocCore = allocCore;
        this.pods = pods;
        this.uids = uids;
        long max = Long.MIN_VALUE;
        for (int i = 0; i < allocMib.length; i++) if (usable(i)) max = Math.max(max, freeMib(i));
        this.maxFreeMib = max;
    }

    public static NodeState empty(NodeInventory inventory) {
        int n = inventory.gpus().size();
        return new NodeState(inventory, new long[n], new int[n], Map.of(), Map.of());
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
        return new NodeState(inventory, mib, core, Collections.unmodifiableMap(p), adjustUid(base.uids, a, +1));
    }

    NodeState without(PodKey pod) {
        Allocation a = pods.get(pod);
        if (a == null) return this;
        var p = new HashMap<>(pods);
        p.remove(pod);
        long[] mib = allocMib.clone();
        int[] core = allocCore.clone();
        charge(a, mib, core, -1);
        return new NodeState(inventory, mib, core, Collections.unmodifiableMap(p), adjustUid(uids, a, -1));
    }

    private void charge(Allocation a, long[] mib, int[] core, int sign) {
        for (int idx : a.gpuIndices()) {
            int pos = position(idx);
            if (pos < 0) continue; // GPU vanished from the inventory: the booking stays visible in pods()
            mib[pos] += sign * a.demand().chargeMib();
            core[pos] += sign * a.demand().chargeCore();
        }
    }

    private static Map<Long, Integer> adjustUid(Map<Long, Integer> uids, Allocation a, int sign) {
        OptionalLong uid = a.demand().runAsUser();
        if (uid.isEmpty()) return uids;
        var m = new HashMap<>(uids);
        m.merge(uid.getAsLong(), sign, Integer::sum);
        m.values().removeIf(v -> v <= 0);
        return Collections.unmodifiableMap(m);
    }

    public NodeInventory inventory() { return inventory; }
    public String name() { return inventory.node(); }
    public int gpuCount() { return allocMib.length; }
    public Gpu gpu(int pos) { return inventory.gpus().get(pos); }
    public long totalMib(int pos) { return inventory.gpus().get(pos).totalMib(); }
    public long allocatedMib(int pos) { return allocMib[pos]; }
    public int allocatedCore(int pos) { return allocCore[pos]; }
    public long freeMib(int pos) { return inventory.gpus().get(pos).totalMib() - allocMib[pos]; }
    public int freeCore(int pos) { return 100 - allocCore[pos]; }
    public boolean usable(int pos) { return inventory.gpus().get(pos).healthy(); }
    /** Largest free memory on a healthy GPU, Long.MIN_VALUE when none is healthy. */
    public long maxFreeMib() { return maxFreeMib; }
    public Map<PodKey, Allocation> pods() { return pods; }
    /** Known Linux UIDs of the node's booked pods, with how many pods run as each. */
    public Map<Long, Integer> uids() { return uids; }

    /** Position of the GPU with NVML index {@code index} in the arrays, -1 when the node has none. */
    public int position(int index) {
        List<Gpu> g = inventory.gpus();
        for (int i = 0; i < g.size(); i++) if (g.get(i).index() == index) return i;
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
        for (int i = 0; i < allocMib.length; i++) m.put(gpu(i).index(), allocMib[i]);
        return m;
    }

    @Override public String toString() { return "NodeState[" + name() + ", allocated=" + allocatedByIndex() + ", pods=" + pods.keySet() + "]"; }
}
