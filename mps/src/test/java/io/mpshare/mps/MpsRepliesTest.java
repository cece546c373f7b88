package io.mpshare.mps;

import io.mpshare.mps.MpsException.Reason;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.List;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Outputs as recorded from nvidia-cuda-mps-control on the H200, driver 580 (FACTS.md). */
class MpsRepliesTest {
    static Stream<Arguments> errors() {
        return Stream.of(
                Arguments.of("no daemon", 1, "Cannot find MPS control daemon process\n", Reason.DAEMON_DOWN),
                Arguments.of("unknown command, exit 0", 0, "Unknown command \"bogus_command\"\n", Reason.UNKNOWN_COMMAND),
                Arguments.of("server gone, exit 0", 0, "Server 999999 not found\n", Reason.SERVER_NOT_FOUND),
                Arguments.of("other failure exit code", 2, "something odd\n", Reason.OTHER));
    }

    @ParameterizedTest(name = "{0}") @MethodSource("errors")
    void check_recognisesErrorsByText(String name, int exit, String output, Reason reason) {
        assertThatThrownBy(() -> MpsReplies.check("cmd", exit, output)).isInstanceOf(MpsException.class)
                .satisfies(e -> assertThat(((MpsException) e).reason()).isEqualTo(reason));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("fine")
    void check_acceptsNormalAnswers(String output) {
        assertThatCode(() -> MpsReplies.check("cmd", 0, output)).doesNotThrowAnyException();
    }

    static Stream<String> fine() { return Stream.of("", "461\n", "3G\n", "100.0\n", "0\n", "ACTIVE\n"); }

    static Stream<Arguments> memory() {
        return Stream.of(
                Arguments.of("3G", 3072L), Arguments.of("4096M", 4096L), Arguments.of("8G\n", 8192L),
                Arguments.of("1.5G", 1536L), Arguments.of("2048MB", 2048L), Arguments.of("1T", 1048576L),
                Arguments.of("0", -1L), Arguments.of("", -1L), Arguments.of("1073741824", 1024L));
    }

    @ParameterizedTest(name = "{0} → {1} MiB") @MethodSource("memory")
    void memoryMib_parsesSizes(String text, long mib) {
        assertThat(MpsReplies.memoryMib("get", text)).isEqualTo(mib);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("badMemory")
    void memoryMib_rejectsOtherText(String text) {
        assertThatThrownBy(() -> MpsReplies.memoryMib("get", text))
                .satisfies(e -> assertThat(((MpsException) e).reason()).isEqualTo(Reason.UNEXPECTED_REPLY));
    }

    static Stream<String> badMemory() { return Stream.of("abc", "3 apples", "G"); }

    @org.junit.jupiter.api.Test void pids_onePerLine_blankLinesIgnored() {
        assertThat(MpsReplies.pids("get_server_list", "461\n\n 462 \n")).isEqualTo(List.of(461L, 462L));
        assertThat(MpsReplies.pids("get_server_list", "")).isEmpty();
        assertThatThrownBy(() -> MpsReplies.pids("get_server_list", "461\nhello\n")).hasMessageContaining("a PID per line");
    }

    @org.junit.jupiter.api.Test void percentage_andMemoryArg() {
        assertThat(MpsReplies.percentage("get", "100.0\n")).isEqualTo(100.0);
        assertThat(MpsReplies.memoryArg(3072)).isEqualTo("3072M");
        assertThatThrownBy(() -> MpsReplies.memoryArg(0)).isInstanceOf(IllegalArgumentException.class);
    }
}
