package io.mpshare.core.policy;

import io.mpshare.core.ledger.Ledger;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.SplittableRandom;

import static io.mpshare.core.CoreFixtures.*;
import static org.assertj.core.api.Assertions.assertThat;

/** Only the best raw score gets kube-scheduler's top score, so a near-tie cannot hand the pick to chance. */
class PrioritizeTopScoreTest {
    private static final long G = 1024;

    @Test void prioritize_nearTie_onlyTheBestRawScoreGetsTen() {
        // a: 10 GiB free, b: 10 GiB + 64 MiB free (rounds to 10 on a 0-10 scale too), c: empty
        Ledger ledger = ledger(h200s("a", 1), h200s("b", 1), h200s("c", 1));
        occupy(ledger, "a", 0, H200_MIB - 10 * G, "pa");
        occupy(ledger, "b", 0, H200_MIB - 10 * G - 64, "pb");
        var scores = new PlacementEngine(ledger, new BinpackPolicy()).prioritize(gib(7), List.of("a", "b", "c"));
        assertThat(scores).containsExactly(new PlacementEngine.NodeScore("a", 10), new PlacementEngine.NodeScore("b", 9),
                new PlacementEngine.NodeScore("c", 0));
    }

    /**
     * {@link PlacementEngine#best}: the node prioritize ranks first (the first top score in request order), over random
     * states with ties and nodes that do not fit, and over a subset of the positions as a filter keeps them.
     */
    @Test void best_isPrioritizesFirstTopScore() {
        var r = new SplittableRandom(3);
        for (int round = 0; round < 200; round++) {
            int n = 1 + r.nextInt(12);
            var specs = new java.util.ArrayList<io.mpshare.core.model.NodeInventory>();
            for (int i = 0; i < n; i++) specs.add(h200s("n" + i, 1 + r.nextInt(2)));
            Ledger ledger = ledger(specs.toArray(io.mpshare.core.model.NodeInventory[]::new));
            for (int i = 0; i < n; i++) // a few fill levels, so that equal scores are common; some nodes full
                if (r.nextInt(3) > 0) occupy(ledger, "n" + i, 0, H200_MIB - (4 + 8L * r.nextInt(3)) * G, "p" + i);
            var engine = new PlacementEngine(ledger, r.nextBoolean() ? new BinpackPolicy() : new SpreadPolicy());
            var view = ledger.fitIndex().view();
            int[] slots = new int[n + 1];
            for (int i = 0; i < n; i++) slots[i] = view.slot("n" + i);
            slots[n] = -1; // a name the ledger never knew
            int[] at = java.util.stream.IntStream.rangeClosed(0, n).filter(i -> r.nextInt(4) > 0).toArray();
            int[] kept = java.util.Arrays.stream(at).map(i -> slots[i]).toArray();
            int[] scores = engine.prioritize(gib(12), kept, null);
            int top = -1;
            for (int i = 0; i < scores.length; i++) if (scores[i] == PlacementEngine.MAX_SCORE) { top = i; break; }
            int best = engine.best(gib(12), slots, at, at.length, null);
            assertThat(best).as("round %d, scores %s", round, java.util.Arrays.toString(scores)).isEqualTo(top);
        }
    }

    @Test void prioritize_equalBest_allShareTen() {
        Ledger ledger = ledger(h200s("a", 1), h200s("b", 1));
        var scores = new PlacementEngine(ledger, new BinpackPolicy()).prioritize(gib(7), List.of("a", "b"));
        assertThat(scores).extracting(PlacementEngine.NodeScore::score).containsExactly(10, 10);
    }
}
