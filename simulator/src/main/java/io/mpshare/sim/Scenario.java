package io.mpshare.sim;

import io.mpshare.sim.workload.Workload;

import java.util.Objects;

/**
 * What one simulation runs: the cluster, the workload, the queue rule, and whose pods they are.
 *
 * @param backfill how many pods behind a waiting queue head may be tried in one scheduling pass
 *                 (0: strict FIFO; the head is always tried first)
 * @param tenants  how many tenants the pods belong to, each in a {@code tenant} fault domain of its own (a daemon per
 *                 tenant on each GPU it uses); pod {@code i} is tenant {@link #tenantOf}. 1: every pod is one tenant's
 *                 (one daemon per GPU, the placement of a cluster without fault domains)
 */
public record Scenario(ClusterShape cluster, Workload workload, int backfill, int tenants) {
    public static final int DEFAULT_BACKFILL = 16;
    public static final int MAX_TENANTS = 100_000;

    public Scenario {
        Objects.requireNonNull(cluster, "cluster");
        Objects.requireNonNull(workload, "workload");
        if (backfill < 0) throw new IllegalArgumentException("backfill must be >= 0");
        if (workload.size() >= EventQueue.MAX_PODS) throw new IllegalArgumentException("at most " + (EventQueue.MAX_PODS - 1) + " pods");
        if (tenants < 1 || tenants > MAX_TENANTS) throw new IllegalArgumentException("tenants must be 1-" + MAX_TENANTS + ", got " + tenants);
    }

    /** One tenant: every pod on one daemon per GPU. */
    public Scenario(ClusterShape cluster, Workload workload, int backfill) { this(cluster, workload, backfill, 1); }

    /** The tenant of pod {@code id}: a fixed pseudo-random spread (neighbours in arrival order are mostly of different tenants). */
    public int tenantOf(int id) {
        long h = (id + 1L) * 0x9E3779B97F4A7C15L; // Fibonacci hashing: the product's top 32 bits, scaled to [0, tenants)
        return (int) (((h >>> 32) * tenants) >>> 32);
    }
}
