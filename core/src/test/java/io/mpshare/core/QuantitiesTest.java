package io.mpshare.core;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.OptionalLong;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.params.provider.Arguments.argumentSet;

class QuantitiesTest {

    static Stream<Arguments> wholeNumbers() {
        return Stream.of(
                argumentSet("plain", "7", 7L),
                argumentSet("zero", "0", 0L),
                argumentSet("surrounding blanks", "  42 ", 42L),
                argumentSet("large", "9223372036854775807", Long.MAX_VALUE));
    }

    @ParameterizedTest
    @MethodSource("wholeNumbers")
    void parseWhole_wholeNumber_parsed(String text, long expected) {
        assertThat(Quantities.parseWhole("gpu-mem", text)).isEqualTo(expected);
    }

    static Stream<Arguments> badNumbers() {
        return Stream.of(
                argumentSet("null", null, "is empty"),
                argumentSet("blank", "  ", "is empty"),
                argumentSet("negative", "-1", "must not be negative"),
                argumentSet("fraction", "1.5", "whole numbers"),
                argumentSet("suffix", "7Gi", "whole numbers"),
                argumentSet("overflow", "9223372036854775808", "whole numbers"));
    }

    @ParameterizedTest
    @MethodSource("badNumbers")
    void parseWhole_notAWholeNumber_throwsWithReason(String text, String fragment) {
        assertThatThrownBy(() -> Quantities.parseWhole("gpu-mem", text))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("gpu-mem")
                .hasMessageContaining(fragment);
    }

    static Stream<Arguments> spellings() {
        return Stream.of(
                argumentSet("plain", "7", OptionalLong.of(7)),
                argumentSet("blanks and sign", " +7 ", OptionalLong.of(7)),
                argumentSet("negative", "-3", OptionalLong.of(-3)),
                argumentSet("null", null, OptionalLong.empty()),
                argumentSet("blank", " ", OptionalLong.empty()),
                argumentSet("fraction", "1.5", OptionalLong.empty()),
                argumentSet("binary suffix", "7Gi", OptionalLong.empty()),
                argumentSet("exponent", "1e3", OptionalLong.empty()),
                argumentSet("overflow", "9223372036854775808", OptionalLong.empty()));
    }

    @ParameterizedTest
    @MethodSource("spellings")
    void whole_spelling_readOrEmpty(String text, OptionalLong expected) {
        assertThat(Quantities.whole(text)).isEqualTo(expected);
    }
}
