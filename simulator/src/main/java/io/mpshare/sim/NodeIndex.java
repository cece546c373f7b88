package io.mpshare.sim;

import io.mpshare.core.ledger.Ledger;
import io.mpshare.core.ledger.NodeState;
import io.mpshare.core.model.GpuDemand;
import io.mpshare.core.policy.Evaluation;
import io.mpshare.core.policy.PlacementPolicy;
import io.mpshare.sim.model.SharingModel;

import java.util.Arrays;
import java.util.Locale;
import java.util.TreeSet;

/**
 * Finds the node a pod goes to, fast, without changing the decision the core would make.
 *
 * <p>Implementation notes.
 * <ul>
 * <li>Nodes are numbered 0..n-1 and named with a fixed-width number, so name order is number order, the
 *     tie-break {@code PlacementEngine.bestNode} uses.</li>
 * <li>BEST_FIT and WORST_FIT keep every GPU in a sorted set keyed by its free MiB (ascending for best
 *     fit, descending for worst fit; then by GPU number). Selection walks the GPUs that have room for the
 *     demand, evaluates each node the first time one of its GPUs comes up, and stops as soon as no
 *     unvisited node can beat the best score found. The bound comes from the shape of the core's binpack
 *     and spread scores ({@code Ranked}): {@code -(leftover * 4096 + secondary)} and
 *     {@code leftover * 4096 + secondary} with {@code secondary} in [0, 4095], where {@code leftover} is the
 *     free MiB left on the chosen GPUs. An unvisited node's chosen GPUs all have at least (best fit) or at
 *     most (worst fit) the current GPU's free memory, which bounds its leftover. The chosen node is the one
 *     {@code bestNode} over all nodes would return; {@code NodeIndexTest} checks that on random workloads.</li>
 * <li>FIRST_FIT keeps a max segment tree over the model's node key and descends to the leftmost node
 *     whose key reaches the demand's threshold; nodes whose evaluation says no are skipped.</li>
 * <li>EXHAUSTIVE evaluates every node: right for any policy, linear in the cluster.</li>
 * <li>Single-threaded: one index per simulation run. {@link #refresh} must follow every ledger change.</li>
 * </ul>
 */
final class NodeIndex {
    private static final int GID_BITS = 24;
    private static final long GID_MASK = (1L << GID_BITS) - 1;
    private static final long FREE_MAX = 1L << 38;

    private final Ledger ledger;
    private final SharingModel model;
    private final PlacementPolicy policy;
    private final ClusterShape shape;
    private final String nameFormat;
    private final int gpn;

    private int count;
    private String[] names = new String[16];
    private NodeState[] states = new NodeState[16];
    private long[] gpuKey = new long[16 * 8];
    private int[] seen = new int[16];
    private int epoch;
    private final TreeSet<Long> gpus = new TreeSet<>();
    private long[] tree = new long[32];
    private int leaves = 16;

    NodeIndex(Ledger ledger, SharingModel model, ClusterShape shape, int maxNodes) {
        this.ledger = ledger;
        this.model = model;
        this.policy = model.policy();
        this.shape = shape;
        this.gpn = shape.gpusPerNode();
        int width = Math.max(5, Integer.toString(Math.max(1, maxNodes - 1)).length());
        this.nameFormat = "node-%0" + width + "d";
        if ((long) maxNodes * gpn >= (1L << GID_BITS)) throw new IllegalArgumentException("too many GPUs for the index: " + (long) maxNodes * gpn);
        Arrays.fill(tree, Long.MIN_VALUE);
    }

    int size() { return count; }

    String name(int node) { return names[node]; }

    NodeState state(int node) { return states[node]; }

    /** Adds an empty node of the cluster's shape to the ledger and the index; returns its number. */
    int addNode() {
        int n = count++;
        if (n == names.length) grow();
        names[n] = String.format(Locale.ROOT, nameFormat, n);
        ledger.upsertNode(shape.inventory(names[n]));
        for (int p = 0; p < gpn; p++) gpuKey[n * gpn + p] = -1;
        if (n >= leaves && model.search() == SharingModel.Search.FIRST_FIT) growTree();
        refresh(n);
        return n;
    }

    private void grow() {
        int cap = names.length * 2;
        names = Arrays.copyOf(names, cap);
        states = Arrays.copyOf(states, cap);
        seen = Arrays.copyOf(seen, cap);
        gpuKey = Arrays.copyOf(gpuKey, cap * gpn);
    }

    private void growTree() {
        while (leaves <= count) leaves *= 2;
        tree = new long[2 * leaves];
        Arrays.fill(tree, Long.MIN_VALUE);
        for (int i = 0; i < count - 1; i++) tree[leaves + i] = states[i] == null ? Long.MIN_VALUE : model.nodeKey(states[i]);
        for (int i = leaves - 1; i > 0; i--) tree[i] = Math.max(tree[2 * i], tree[2 * i + 1]);
    }

    /** Re-reads the node from the ledger after a booking or a release changed it. */
    void refresh(int node) {
        NodeState s = ledger.node(names[node]);
        states[node] = s;
        switch (model.search()) {
            case BEST_FIT, WORST_FIT -> {
                boolean desc = model.search() == SharingModel.Search.WORST_FIT;
                for (int p = 0; p < gpn; p++) {
                    int gid = node * gpn + p;
                    long free = s.usable(p) ? Math.max(0, s.freeMib(p)) : 0;
                    long key = ((desc ? FREE_MAX - free : free) << GID_BITS) | gid;
                    if (key != gpuKey[gid]) {
                        if (gpuKey[gid] >= 0) gpus.remove(gpuKey[gid]);
                        gpus.add(key);
                        gpuKey[gid] = key;
                    }
                }
            }
            case FIRST_FIT -> {
                if (node >= leaves) growTree();
                int i = leaves + node;
                tree[i] = model.nodeKey(s);
                for (i >>= 1; i > 0; i >>= 1) tree[i] = Math.max(tree[2 * i], tree[2 * i + 1]);
            }
            case EXHAUSTIVE -> { }
        }
    }

    /** The node the pod goes to, or -1 when no node can take it now. */
    int select(GpuDemand d) {
        return switch (model.search()) {
            case BEST_FIT -> scored(d, false);
            case WORST_FIT -> scored(d, true);
            case FIRST_FIT -> firstFit(d);
            case EXHAUSTIVE -> exhaustive(d);
        };
    }

    private int scored(GpuDemand d, boolean desc) {
        long need = d.chargeMib();
        long k = d.gpuCount();
        if (++epoch == 0) { Arrays.fill(seen, 0); epoch = 1; }
        var walk = desc ? gpus : gpus.tailSet(need << GID_BITS, true);
        int bestNode = -1;
        long bestScore = Long.MIN_VALUE;
        for (long key : walk) {
            long v = key >>> GID_BITS;
            long free = desc ? FREE_MAX - v : v;
            if (free < need) break;
            int node = (int) ((key & GID_MASK) / gpn);
            if (bestNode >= 0) {
                long bound = desc ? k * (free - need) * 4096 + 4095 : -(k * (free - need) * 4096);
                if (bound < bestScore || (bound == bestScore && node > bestNode)) break;
            }
            if (seen[node] == epoch) continue;
            seen[node] = epoch;
            if (policy.evaluate(states[node], d) instanceof Evaluation.Fits f
                    && (bestNode < 0 || f.score() > bestScore || (f.score() == bestScore && node < bestNode))) {
                bestNode = node;
                bestScore = f.score();
            }
        }
        return bestNode;
    }

    /** True when one of nodes 0..limit-1 can take the demand now. */
    boolean anyFits(GpuDemand d, int limit) {
        for (int n = 0; n < Math.min(limit, count); n++) if (policy.evaluate(states[n], d) instanceof Evaluation.Fits) return true;
        return false;
    }

    private int exhaustive(GpuDemand d) {
        int bestNode = -1;
        long bestScore = Long.MIN_VALUE;
        for (int n = 0; n < count; n++) {
            if (policy.evaluate(states[n], d) instanceof Evaluation.Fits f && (bestNode < 0 || f.score() > bestScore)) {
                bestNode = n;
                bestScore = f.score();
            }
        }
        return bestNode;
    }

    private int firstFit(GpuDemand d) {
        long threshold = model.threshold(d, shape.gpuMib());
        int from = 0;
        while (from < count) {
            int n = leftmost(1, 0, leaves, from, threshold);
            if (n < 0 || n >= count) return -1;
            if (policy.evaluate(states[n], d) instanceof Evaluation.Fits) return n;
            from = n + 1;
        }
        return -1;
    }

    /** Leftmost leaf at or after {@code from} in the subtree {@code i} (covering [lo, hi)) whose key is >= threshold. */
    private int leftmost(int i, int lo, int hi, int from, long threshold) {
        if (hi <= from || tree[i] < threshold) return -1;
        if (hi - lo == 1) return lo;
        int mid = (lo + hi) >>> 1;
        int left = leftmost(2 * i, lo, mid, from, threshold);
        return left >= 0 ? left : leftmost(2 * i + 1, mid, hi, from, threshold);
    }
}
