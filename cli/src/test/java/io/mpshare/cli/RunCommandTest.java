package io.mpshare.cli;

import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class RunCommandTest {
    @Test void parseMib_gibMibAndFractions() {
        assertThat(RunCommand.parseMib("7")).isEqualTo(7168);
        assertThat(RunCommand.parseMib("7G")).isEqualTo(7168);
        assertThat(RunCommand.parseMib("1.5")).isEqualTo(1536);
        assertThat(RunCommand.parseMib("7168M")).isEqualTo(7168);
        assertThat(RunCommand.parseMib("512Mi")).isEqualTo(512);
        assertThatThrownBy(() -> RunCommand.parseMib("lots")).hasMessageContaining("write GiB");
    }

    @Test void parseDuration_units() {
        assertThat(RunCommand.parseDuration("30s")).isEqualTo(Duration.ofSeconds(30));
        assertThat(RunCommand.parseDuration("5m")).isEqualTo(Duration.ofMinutes(5));
        assertThat(RunCommand.parseDuration("1h")).isEqualTo(Duration.ofHours(1));
        assertThatThrownBy(() -> RunCommand.parseDuration("soon")).hasMessageContaining("30s");
    }

    @Test void run_commandAfterDoubleDash_keepsItsOwnOptions() {
        RunCommand r = new RunCommand();
        new CommandLine(r).parseArgs("--gpu-mem", "7", "--gpu-core", "30", "--", "sh", "-c", "exit 3");
        assertThat(r.command).containsExactly("sh", "-c", "exit 3");
        assertThat(r.core).isEqualTo(30);
    }

    @Test void host_unmanaged_policeOrReport() {
        assertThat(HostCommand.policeUnmanaged("police")).isTrue();
        assertThat(HostCommand.policeUnmanaged("report")).isFalse();
        assertThatThrownBy(() -> HostCommand.policeUnmanaged("kill")).hasMessageContaining("police or report");
    }
}
