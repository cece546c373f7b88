package io.mpshare.core.policy;

import io.mpshare.core.ledger.NodeState;
import io.mpshare.core.model.GpuDemand;

/**
 * The cost of one more MPS daemon on a GPU. Servers of different daemons time-slice with each other (measured on the
 * H200, 8 small-kernel clients: one daemon 1.40 M iterations, two daemons 0.73 M, four 0.46 M; 1024² products: two
 * daemons 0.93 of one), so a pod whose domain's daemon already serves a GPU adds no slicing there, and a pod that
 * brings a new daemon to a GPU where {@code k} daemons run makes {@code k + 1} slice instead of {@code k}.
 *
 * <p>The cost of placing a one-GPU demand on the GPU at {@code pos} is 0 when its domain already runs there or no
 * domain runs there (an idle GPU: a new daemon slices with nobody), else the number of daemons already there. With one
 * domain in the cluster every GPU costs 0, so placement is exactly the policy's. With many, an idle GPU is taken before
 * a GPU another domain serves, which opens GPUs: the simulator's built-in mix needed 10% more GPUs with 8 tenants and
 * 25% more with 32 than with one (docs/decisions/domain-aware-placement.md weighs that against the throughput it
 * keeps). It only orders what fits: GPUs and nodes without room are never chosen for a lower cost. In a node's score it comes before
 * the policy's own measure ({@link #WEIGHT} above any policy score), so a tenant's pod goes where its domain runs
 * whenever room allows. A pod of several GPUs (the node daemon's) is placed by room alone: cost 0.
 */
final class DomainCost {
    private DomainCost() {}

    /** Above every policy's score range (binpack and spread below 2^31 per GPU, fragmentation below 2^40). */
    static final long WEIGHT = 1L << 44;
    /** Costs above this count as this (no node has that many daemons on a GPU; keeps the score in range). */
    static final int CAP = 1 << 10;

    /** The cost of {@code d} on the GPU at {@code pos} (see the class comment). */
    static int of(NodeState s, int pos, GpuDemand d) {
        if (!matters(s, d)) return 0;
        int k = s.domainsOn(pos);
        if (k == 0 || s.runsOn(pos, d.domain())) return 0;
        return Math.min(k, CAP);
    }

    /**
     * Whether the cost can be above 0 on a GPU of the node for {@code d}: a one-GPU demand on a node with bookings of
     * another domain than its own (a node whose pods all share the demand's domain costs nothing anywhere).
     */
    static boolean matters(NodeState s, GpuDemand d) {
        return d.gpuCount() == 1 && s.hasBookings() && !d.domain().equals(s.onlyDomain());
    }

    /** A policy score with the cost in front: fewer new slices first, then the policy's own order. */
    static long weigh(long policyScore, int cost) { return policyScore - cost * WEIGHT; }
}
