package io.mpshare.bench.openb;

import io.mpshare.sim.openb.Replay;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

class FamiliesMainTest {
    static Replay.Result r(String trace, String policy, long seed, double ratio) {
        return new Replay.Result(trace, policy, seed, new double[] {0, ratio}, ratio, 10, 0, 0, 1);
    }

    /** Two resampling seeds of one variant pool under its name; the gap is taken per (resampling, arrival) pair. */
    @Test
    void rows_variantSeedsPooled_gapPerSameArrivals_worstNamed() {
        List<FamiliesMain.Row> rows = FamiliesMain.rows(List.of(
                r("gpushare40#1", "default", 42, 0.95), r("gpushare40#1", "fgd", 42, 0.94),
                r("gpushare40#2", "default", 42, 0.93), r("gpushare40#2", "fgd", 42, 0.935),
                r("gpushare40#2", "default", 43, 0.96), r("gpushare40#2", "fgd", 43, 0.95),
                r("default", "default", 42, 0.955), r("default", "fgd", 42, 0.953)));
        assertEquals(2, rows.size());
        FamiliesMain.Row g = rows.getFirst();
        assertEquals("gpushare40", g.trace());
        assertEquals(3, g.runs());
        assertEquals((0.95 + 0.93 + 0.96) / 3, g.meanByPolicy().get("default"), 1e-12);
        assertEquals((0.01 - 0.005 + 0.01) / 3, g.meanGap(), 1e-12);
        assertEquals(-0.005, g.worstGap(), 1e-12);
        assertEquals("gpushare40#2/42", g.worstAt());
        assertEquals(0.002, rows.get(1).worstGap(), 1e-12);
    }

    @Test
    void rows_withoutFgd_haveNoGap() {
        FamiliesMain.Row row = FamiliesMain.rows(List.of(r("cpu050#1", "default", 42, 0.9))).getFirst();
        assertEquals(Double.NaN, row.meanGap());
        assertEquals("-", row.worstAt());
    }
}
