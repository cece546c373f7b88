package io.mpshare.mps;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class SupervisorConfigTest {
    @Test void parseCeilings_mibMiBSuffixAndGiB() {
        assertThat(SupervisorConfig.parseCeilings(List.of("0=8192", "1=4096M", "2=8G"))).isEqualTo(Map.of(0, 8192L, 1, 4096L, 2, 8192L));
    }

    @ParameterizedTest @ValueSource(strings = {"0", "0=", "x=1G", "0=abc", "0=-5", "-1=4G", "0=99999999999999999G"})
    void parseCeilings_bad_saysHowToWriteIt(String spec) {
        assertThatThrownBy(() -> SupervisorConfig.parseCeilings(List.of(spec))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("DEVICE=SIZE");
    }

    @Test void paths_underRunDirPerColour() {
        SupervisorConfig c = SupervisorConfig.defaults(Colour.GREEN, Path.of("/run/mpshare"));
        assertThat(c.pipeDir()).isEqualTo(Path.of("/run/mpshare/green/pipe"));
        assertThat(c.logDir()).isEqualTo(Path.of("/run/mpshare/green/log"));
        assertThat(Colour.GREEN.readyMarker(Path.of("/run/mpshare"))).isEqualTo(Path.of("/run/mpshare/green/ready"));
        assertThat(Colour.parse(" Blue ")).isEqualTo(Colour.BLUE);
        assertThat(Colour.DEFAULT.id()).isEqualTo(io.mpshare.core.Names.MPS_COLOUR_DEFAULT);
        assertThat(Colour.GREEN.id()).isEqualTo(io.mpshare.core.Names.MPS_COLOUR_GREEN);
        assertThatThrownBy(() -> Colour.parse("red")).hasMessageContaining("blue or green");
    }

    @Test void threadPercentage_outOfRange_rejected() {
        assertThatThrownBy(() -> SupervisorConfig.defaults(Colour.BLUE, Path.of("/r")).withThreadPercentage(OptionalInt.of(0)))
                .hasMessageContaining("1..100");
    }
}
