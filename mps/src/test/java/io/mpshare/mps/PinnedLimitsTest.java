package io.mpshare.mps;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.assertj.core.api.Assertions.assertThat;

class PinnedLimitsTest {
    @ParameterizedTest(name = "{0} MiB -> {1} MiB")
    @CsvSource({
            "0, 1024",       // nothing booked: the smallest the daemon holds
            "1, 1024",
            "1024, 1024",    // whole GiB stays
            "1025, 2048",    // never below the booked cap
            "2560, 3072",    // 2 GiB + reserve: the daemon would read 2560M back as 2G
            "7680, 8192",
            "10752, 11264",
    })
    void roundUpToWholeGib_neverBelowTheCap(long mib, long expected) {
        assertThat(PinnedLimits.roundUpToWholeGib(mib)).isEqualTo(expected).isGreaterThanOrEqualTo(mib);
        assertThat(PinnedLimits.wholeGib(expected)).isTrue();
    }
}
