package io.mpshare.kube;

import io.mpshare.core.MemoryUnit;
import io.mpshare.core.model.PodInfo;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The two readings of one pod's facts: strict for a pod being placed, lenient for a pod already placed or looked at. */
class PodFactsTest {
    private static PodFacts pod(String gpuCount, String mem, String core) {
        return new PodFacts("ml", "p", "u1", gpuCount, 1000L, List.of(new PodFacts.Container("main", false, mem, core, null)), null);
    }

    @ParameterizedTest(name = "gpu-mem {0} gpu-core {1}: strict refuses, lenient reads {2} MiB {3} %")
    @CsvSource(nullValues = "null", value = {
            "7Gi, null, 0, 0",
            "1.5, null, 0, 0",
            "-1, null, 0, 0",
            "99999999999999999, null, 0, 0",
            "2, 150, 2048, 100",
            "2, abc, 2048, 0"})
    void toPodInfoLenient_unreadableAmount_countsZeroWhereStrictRefuses(String mem, String core, long mib, int percent) {
        PodFacts f = pod(null, mem, core);
        assertThatThrownBy(() -> f.toPodInfo(MemoryUnit.GIB)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("pod ml/p");
        PodInfo lenient = f.toPodInfoLenient(MemoryUnit.GIB);
        assertThat(lenient.containers().getFirst().memMib()).isEqualTo(mib);
        assertThat(lenient.containers().getFirst().corePercent()).isEqualTo(percent);
        assertThat(lenient.runAsUser()).hasValue(1000);
    }

    @ParameterizedTest(name = "gpu-count {0}: lenient reads {1}")
    @CsvSource({"2, 2", "x, 1", "0, 1", "65, 1"})
    void toPodInfoLenient_gpuCountLabel_readOrOne(String label, int count) {
        assertThat(pod(label, "4", null).toPodInfoLenient(MemoryUnit.GIB).gpuCount()).isEqualTo(count);
    }

    @ParameterizedTest(name = "gpu-mem {0}: both read {1} MiB")
    @CsvSource({"7, 7168", "' 7 ', 7168", "0, 0"})
    void toPodInfo_wholeNumbers_strictAndLenientAgree(String mem, long mib) {
        PodFacts f = pod("1", mem, null);
        assertThat(f.toPodInfo(MemoryUnit.GIB).containers()).isEqualTo(f.toPodInfoLenient(MemoryUnit.GIB).containers());
        assertThat(f.toPodInfo(MemoryUnit.GIB).containers().getFirst().memMib()).isEqualTo(mib);
    }
}
