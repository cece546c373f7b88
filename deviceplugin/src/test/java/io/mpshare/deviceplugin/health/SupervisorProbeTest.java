package io.mpshare.deviceplugin.health;

import io.mpshare.mps.MpsException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class SupervisorProbeTest {
    @TempDir Path run;

    void status(String colour, boolean up, long pid) throws Exception {
        Files.createDirectories(run.resolve(colour));
        Files.writeString(run.resolve(colour).resolve("status.json"),
                "{\"colour\":\"" + colour + "\",\"daemonUp\":" + up + ",\"daemonPid\":" + pid + ",\"phase\":\"UP\"}");
    }

    @Test void daemonUp_statusUpAndPidAlive_true() throws Exception {
        status("blue", true, ProcessHandle.current().pid());
        assertThat(new SupervisorProbe(run, () -> "blue", true).daemonUp()).isTrue();
    }

    @Test void daemonUp_statusSaysDown_false() throws Exception {
        status("blue", false, 0);
        assertThat(new SupervisorProbe(run, () -> "blue", true).daemonUp()).isFalse();
    }

    @Test void daemonUp_fileSaysUpButPidGone_false() throws Exception {
        status("blue", true, Long.MAX_VALUE / 2);
        assertThat(new SupervisorProbe(run, () -> "blue", true).daemonUp()).isFalse();
        assertThat(new SupervisorProbe(run, () -> "blue", false).daemonUp()).isTrue();
    }

    @Test void daemonUp_followsTheActiveColour() throws Exception {
        status("blue", false, 0);
        status("green", true, ProcessHandle.current().pid());
        assertThat(new SupervisorProbe(run, () -> "green", true).daemonUp()).isTrue();
    }

    @Test void daemonUp_noStatusFile_throwsSoTheMonitorCountsItDown() {
        assertThatThrownBy(() -> new SupervisorProbe(run, () -> "blue", true).daemonUp()).isInstanceOf(MpsException.class)
                .hasMessageContaining("status.json");
    }
}
