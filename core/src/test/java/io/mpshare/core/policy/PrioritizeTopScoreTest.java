package io.mpshare.core.policy;

import io.mpshare.core.ledger.Ledger;
import org.junit.jupiter.api.Test;

import java.util.List;

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

    @Test void prioritize_equalBest_allShareTen() {
        Ledger ledger = ledger(h200s("a", 1), h200s("b", 1));
        var scores = new PlacementEngine(ledger, new BinpackPolicy()).prioritize(gib(7), List.of("a", "b"));
        assertThat(scores).extracting(PlacementEngine.NodeScore::score).containsExactly(10, 10);
    }
}
