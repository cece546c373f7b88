package io.mpshare.sim;

import io.mpshare.sim.workload.Workload;

import java.util.Objects;

/**
 * What one simulation runs: the cluster, the workload, and the queue rule.
 *
 * @param backfill how many pods behind a waiting queue head may be tried in one scheduling pass
 *                 (0: strict FIFO; the head is always tried first)
 */
public record Scenario(ClusterShape cluster, Workload workload, int backfill) {
    public static final int DEFAULT_BACKFILL = 16;

    public Scenario {
        Objects.requireNonNull(cluster, "cluster");
        Objects.requireNonNull(workload, "workload");
        if (backfill < 0) throw new IllegalArgumentException("backfill must be >= 0");
        if (workload.size() >= EventQueue.MAX_PODS) throw new IllegalArgumentException("at most " + (EventQueue.MAX_PODS - 1) + " pods");
    }
}
