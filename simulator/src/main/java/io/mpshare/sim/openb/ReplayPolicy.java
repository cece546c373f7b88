package io.mpshare.sim.openb;

import java.util.SplittableRandom;

/**
 * Chooses where one arriving task goes in a replay. One instance per replay (some keep per-run state);
 * called from one thread. {@link #choose} decides, the replay books it and then calls {@link #placed}.
 */
interface ReplayPolicy {
    /** Node index and GPU positions on it. */
    record Placement(int node, int[] gpus) {}

    /** Where the task goes, or null when it fits nowhere. Must not change the cluster. */
    Placement choose(Cluster c, OpenbTrace.Task t, SplittableRandom rnd);

    /** The task was booked where {@link #choose} said. */
    default void placed(Cluster c, OpenbTrace.Task t, Placement p) {}

    /**
     * The highest-scoring node that fits, ties broken uniformly at random as kube-scheduler's selectHost
     * does; -1 when none fits.
     */
    static int argmaxRandomTies(Cluster c, OpenbTrace.Task t, SplittableRandom rnd, java.util.function.IntToLongFunction score) {
        int best = -1, ties = 0;
        long bestScore = Long.MIN_VALUE;
        for (int i = 0; i < c.size(); i++) {
            if (!c.fits(i, t)) continue;
            long s = score.applyAsLong(i);
            if (best < 0 || s > bestScore) { best = i; bestScore = s; ties = 1; }
            else if (s == bestScore && rnd.nextInt(++ties) == 0) best = i;
        }
        return best;
    }
}
