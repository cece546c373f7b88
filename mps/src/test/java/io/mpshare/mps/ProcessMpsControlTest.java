package io.mpshare.mps;

import io.mpshare.mps.MpsException.Reason;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** ProcessMpsControl against a fake nvidia-cuda-mps-control script that answers as the real one. */
class ProcessMpsControlTest {
    @TempDir Path tmp;
    Path pipe;
    ProcessMpsControl mps;

    @BeforeEach void setUp() throws IOException {
        pipe = Files.createDirectories(tmp.resolve("pipe"));
        mps = new ProcessMpsControl(new ProcessMpsControl.Config(FakeBinary.install(tmp.resolve("bin")), pipe, tmp.resolve("log"), Duration.ofSeconds(5)));
    }

    private void daemonRuns() throws IOException { Files.writeString(pipe.resolve("control"), ProcessHandle.current().pid() + "\n"); }

    private void server(long pid, long... clients) throws IOException {
        Files.writeString(pipe.resolve("servers"), pid + "\n", java.nio.file.StandardOpenOption.CREATE, java.nio.file.StandardOpenOption.APPEND);
        StringBuilder sb = new StringBuilder();
        for (long c : clients) sb.append(c).append('\n');
        Files.writeString(pipe.resolve("clients." + pid), sb);
    }

    private List<String> sent() throws IOException { return Files.readAllLines(pipe.resolve("commands.log")); }

    @Test void daemonUp_noDaemon_false() {
        assertThat(mps.daemonUp()).isFalse();
    }

    @Test void anyCommand_noDaemon_daemonDownError() {
        assertThatThrownBy(mps::serverPids).isInstanceOf(MpsException.class)
                .satisfies(e -> assertThat(((MpsException) e).reason()).isEqualTo(Reason.DAEMON_DOWN));
    }

    @Test void serversAndClients_parsed() throws IOException {
        daemonRuns();
        server(461, 1001, 1002);
        assertThat(mps.daemonUp()).isTrue();
        assertThat(mps.serverPids()).containsExactly(461L);
        assertThat(mps.clientPids(461)).containsExactly(1001L, 1002L);
        assertThat(sent()).contains("get_server_list", "get_client_list 461");
    }

    @Test void setDefaultPinnedMemLimit_sendsMiBAndReadsBack() throws IOException {
        daemonRuns();
        mps.setDefaultPinnedMemLimit(0, 8192);
        assertThat(mps.defaultPinnedMemLimit(0)).isEqualTo(8192);
        assertThat(mps.defaultPinnedMemLimit(1)).isEqualTo(-1);
        assertThat(sent()).containsSubsequence("set_default_device_pinned_mem_limit 0 8192M", "get_default_device_pinned_mem_limit 0");
    }

    @Test void setDefaultPinnedMemLimit_silentlyIgnored_notApplied() throws IOException {
        daemonRuns();
        Files.createFile(pipe.resolve("ignore-sets"));
        assertThatThrownBy(() -> mps.setDefaultPinnedMemLimit(0, 4096))
                .satisfies(e -> assertThat(((MpsException) e).reason()).isEqualTo(Reason.NOT_APPLIED))
                .hasMessageContaining("4096 MiB").hasMessageContaining("reads back -1 MiB");
    }

    @Test void setServerPinnedMemLimit_unknownServer_serverNotFound() throws IOException {
        daemonRuns();
        assertThatThrownBy(() -> mps.setServerPinnedMemLimit(999999, 0, 2048))
                .satisfies(e -> assertThat(((MpsException) e).reason()).isEqualTo(Reason.SERVER_NOT_FOUND))
                .hasMessageContaining("Server 999999 not found");
    }

    @Test void setServerPinnedMemLimit_runningServer_readBack() throws IOException {
        daemonRuns();
        server(461);
        mps.setServerPinnedMemLimit(461, 0, 6144);
        assertThat(mps.serverPinnedMemLimit(461, 0)).isEqualTo(6144);
    }

    @Test void setDefaultActiveThreadPercentage_readBack() throws IOException {
        daemonRuns();
        mps.setDefaultActiveThreadPercentage(30);
        assertThat(sent()).containsSubsequence("set_default_active_thread_percentage 30", "get_default_active_thread_percentage");
    }

    @Test void unknownCommand_typed() throws IOException {
        daemonRuns();
        assertThatThrownBy(() -> mps.run("bogus_command"))
                .satisfies(e -> assertThat(((MpsException) e).reason()).isEqualTo(Reason.UNKNOWN_COMMAND));
    }

    @Test void run_hangingClient_killedAtTimeout() throws IOException {
        daemonRuns();
        ProcessMpsControl quick = new ProcessMpsControl(new ProcessMpsControl.Config(mps.config().binary(), pipe, tmp, Duration.ofMillis(300)));
        assertThatThrownBy(() -> quick.run("hang"))
                .satisfies(e -> assertThat(((MpsException) e).reason()).isEqualTo(Reason.TIMEOUT));
        assertThat(quick.daemonUp()).isTrue();
    }

    @Test void quit_stopsTheDaemon() throws IOException {
        daemonRuns();
        mps.quit();
        assertThat(mps.daemonUp()).isFalse();
    }

    @Test void missingBinary_cannotRun() {
        ProcessMpsControl none = new ProcessMpsControl(new ProcessMpsControl.Config(tmp.resolve("nope"), pipe, tmp, Duration.ofSeconds(1)));
        assertThatThrownBy(none::daemonUp).satisfies(e -> assertThat(((MpsException) e).reason()).isEqualTo(Reason.CANNOT_RUN));
    }
}
