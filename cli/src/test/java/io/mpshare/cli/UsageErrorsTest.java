package io.mpshare.cli;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** Command-line mistakes through the real parser: one line, exit 2, the nearest name when it is a typo away. */
class UsageErrorsTest {
    private static String oneLine(String... args) {
        CliRun r = CliRun.of(args);
        assertThat(r.exitCode()).as(r.err()).isEqualTo(ExitCodes.USAGE);
        assertThat(r.errLines()).as(r.err()).hasSize(1);
        assertThat(r.out()).isEmpty();
        return r.err().strip();
    }

    @Test void commandTypo_didYouMean() {
        assertThat(oneLine("inpsect")).isEqualTo("mpshare: unknown command 'inpsect'; did you mean inspect? ('mpshare --help' lists them)");
        assertThat(oneLine("device-plugn", "--node-name", "n")).isEqualTo(
                "mpshare: unknown command 'device-plugn'; did you mean device-plugin? ('mpshare --help' lists them)");
    }

    @Test void commandNothingLike_listsTheCommands_noGuess() {
        assertThat(oneLine("frobnicate")).isEqualTo("mpshare: unknown command 'frobnicate' ('mpshare --help' lists them: "
                + "device-plugin, host, inspect, mps-control, ps, run, scheduler-extender, simulate, upgrade-node, webhook)");
    }

    @Test void optionTypo_didYouMean() {
        assertThat(oneLine("inspect", "--detials")).isEqualTo(
                "mpshare inspect: Unknown option: '--detials'; did you mean --details? ('mpshare inspect --help' lists the options)");
    }

    @Test void optionNothingLike_hintOnly() {
        assertThat(oneLine("inspect", "--zzzzzz")).isEqualTo("mpshare inspect: Unknown option: '--zzzzzz' ('mpshare inspect --help' lists the options)");
    }

    @Test void distance_countsASwapAsOneEdit() {
        assertThat(UsageErrors.distance("inpsect", "inspect")).isEqualTo(1);
        assertThat(UsageErrors.distance("--nodse", "--nodes")).isEqualTo(1);
        assertThat(UsageErrors.distance("foo", "webhook")).isGreaterThan(2);
    }
}
