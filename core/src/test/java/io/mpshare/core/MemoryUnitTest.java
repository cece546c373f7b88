package io.mpshare.core;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.params.provider.Arguments.argumentSet;

class MemoryUnitTest {

    static Stream<Arguments> conversions() {
        return Stream.of(
                argumentSet("7 GiB", MemoryUnit.GIB, 7L, 7168L),
                argumentSet("0 GiB", MemoryUnit.GIB, 0L, 0L),
                argumentSet("7 MiB", MemoryUnit.MIB, 7L, 7L),
                argumentSet("one H200 in MiB", MemoryUnit.MIB, 143_771L, 143_771L));
    }

    @ParameterizedTest
    @MethodSource("conversions")
    void toMib_units_convertsAndBack(MemoryUnit unit, long units, long mib) {
        assertThat(unit.toMib(units)).isEqualTo(mib);
        assertThat(unit.fromMib(mib)).isEqualTo(units);
    }

    @Test
    void fromMib_partialGib_roundsDown() {
        assertThat(MemoryUnit.GIB.fromMib(143_771)).isEqualTo(140);
    }

    @Test
    void toMib_negative_throws() {
        assertThatThrownBy(() -> MemoryUnit.GIB.toMib(-1)).hasMessageContaining("negative");
    }

    @Test
    void toMib_overflow_throws() {
        assertThatThrownBy(() -> MemoryUnit.GIB.toMib(Long.MAX_VALUE / 2)).isInstanceOf(ArithmeticException.class);
    }

    static Stream<Arguments> spellings() {
        return Stream.of(
                argumentSet("GiB", "GiB", MemoryUnit.GIB), argumentSet("gi", "gi", MemoryUnit.GIB),
                argumentSet("G with blanks", " G ", MemoryUnit.GIB), argumentSet("MiB", "MiB", MemoryUnit.MIB),
                argumentSet("mi", "mi", MemoryUnit.MIB), argumentSet("M", "M", MemoryUnit.MIB));
    }

    @ParameterizedTest
    @MethodSource("spellings")
    void parse_knownSpelling_returnsUnit(String text, MemoryUnit expected) {
        assertThat(MemoryUnit.parse(text)).isEqualTo(expected);
        assertThat(MemoryUnit.parse(expected.symbol())).isEqualTo(expected);
    }

    @ParameterizedTest
    @ValueSource(strings = {"GB", "KiB", "", "bytes"})
    void parse_unknownSpelling_saysWhatIsAccepted(String text) {
        assertThatThrownBy(() -> MemoryUnit.parse(text)).hasMessageContaining("use GiB or MiB");
    }
}
