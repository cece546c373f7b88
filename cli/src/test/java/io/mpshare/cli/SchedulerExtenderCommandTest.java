package io.mpshare.cli;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import picocli.CommandLine;

import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;

class SchedulerExtenderCommandTest {
    static Stream<Arguments> uidRuleFlags() {
        return Stream.of(
                Arguments.of(List.of(), true),
                Arguments.of(List.of("--uid-rule"), true),
                Arguments.of(List.of("--uid-rule=true"), true),
                Arguments.of(List.of("--uid-rule=false"), false),
                Arguments.of(List.of("--no-uid-rule"), false));
    }

    @ParameterizedTest
    @MethodSource("uidRuleFlags")
    void uidRule_flags_onByDefault(List<String> args, boolean expected) {
        SchedulerExtenderCommand cmd = new SchedulerExtenderCommand();
        new CommandLine(cmd).parseArgs(args.toArray(String[]::new));
        assertEquals(expected, cmd.uidRule, "uidRule after " + args);
    }
}
