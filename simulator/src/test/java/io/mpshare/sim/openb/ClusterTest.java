package io.mpshare.sim.openb;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/** The fit rules: CPU, memory, GPU model and GPU room must all fit. */
class ClusterTest {
    static final OpenbTrace.Node T4X2 = new OpenbTrace.Node("n", 8000, 16384, 2, "T4");

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = ';', value = {
            "fits;                    4000; 8192;  1; 500;  ;         true",
            "all of the CPU;          8000; 8192;  1; 500;  ;         true",
            "too much CPU;            8001; 8192;  1; 500;  ;         false",
            "too much memory;         4000; 16385; 1; 500;  ;         false",
            "model allowed;           4000; 8192;  1; 500;  T4|A10;   true",
            "model not allowed;       4000; 8192;  1; 500;  V100M32;  false",
            "two whole GPUs;          4000; 8192;  2; 1000; ;         true",
            "three GPUs on two;       4000; 8192;  3; 1000; ;         false",
            "CPU-only, no GPU check;  4000; 8192;  0; 0;    V100M32;  true",
    })
    void fits_emptyNode(String name, long cpu, long mem, int num, int milli, String spec, boolean fits) {
        Cluster c = new Cluster(List.of(T4X2), null);
        Set<String> models = spec == null ? Set.of() : Set.of(spec.strip().split("\\|"));
        assertThat(c.fits(0, new OpenbTrace.Task("t", cpu, mem, num, milli, models))).isEqualTo(fits);
    }

    @ParameterizedTest(name = "share {0} after 600+700")
    @CsvSource({"300, true", "400, true", "401, false"})
    void gpuRoom_shareNeedsOneGpuWithRoom(int milli, boolean fits) {
        Cluster c = new Cluster(List.of(T4X2), null);
        c.place(0, new OpenbTrace.Task("a", 1, 1, 1, 600, Set.of()), new int[] {0});
        c.place(0, new OpenbTrace.Task("b", 1, 1, 1, 700, Set.of()), new int[] {1});
        assertThat(c.fits(0, new OpenbTrace.Task("t", 1, 1, 1, milli, Set.of()))).isEqualTo(fits);
        assertThat(c.fits(0, new OpenbTrace.Task("w", 1, 1, 1, 1000, Set.of()))).isFalse();
        assertThat(c.placedGpuMilli).isEqualTo(1300);
    }
}
