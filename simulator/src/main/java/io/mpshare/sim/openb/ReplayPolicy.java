package io.mpshare.sim.openb;

import java.util.SplittableRandom;
import java.util.function.IntToLongFunction;

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
     * The highest-scoring node that fits; -1 when none fits. Ties go to the node that comes first in the
     * replay's node order ({@link Cluster#order}, a permutation drawn from the seed), which is how the paper's
     * simulator behaves: it renames the nodes with a random prefix and its scheduler keeps the first of
     * equal scores. (Breaking every tie afresh at random, as stock kube-scheduler does, spreads equal-score
     * tasks and costs FGD about 5 points on the default trace.)
     */
    static int argmax(Cluster c, OpenbTrace.Task t, IntToLongFunction score) {
        int best = -1;
        long bestScore = Long.MIN_VALUE;
        for (int k = 0; k < c.size(); k++) {
            int i = c.order[k];
            if (!c.fits(i, t)) continue;
            long s = score.applyAsLong(i);
            if (best < 0 || s > bestScore) { best = i; bestScore = s; }
        }
        return best;
    }
}
