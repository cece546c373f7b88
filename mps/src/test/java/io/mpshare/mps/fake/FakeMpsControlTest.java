package io.mpshare.mps.fake;

import io.mpshare.mps.MpsException;
import io.mpshare.mps.MpsException.Reason;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The fake behaves as FACTS.md says the real daemon does. */
class FakeMpsControlTest {
    FakeMpsControl mps = new FakeMpsControl();

    @Test void serverStartsLazily_withTheDefaultLimitOfThatMoment() {
        mps.setDefaultPinnedMemLimit(0, 3072);
        long server = mps.connectClient(11);
        mps.setDefaultPinnedMemLimit(0, 8192);
        assertThat(mps.serverPinnedMemLimit(server, 0)).isEqualTo(3072);
        assertThat(mps.clientPids(server)).containsExactly(11L);
        assertThat(mps.connectClient(12)).isEqualTo(server);
    }

    @Test void keepingWholeGib_limitCutDownAndSetterFailsAsTheReadBackWould() {
        mps.keepingWholeGib();
        mps.setDefaultPinnedMemLimit(0, 3072);
        assertThat(mps.defaultPinnedMemLimit(0)).isEqualTo(3072);
        assertThatThrownBy(() -> mps.setDefaultPinnedMemLimit(0, 2560))
                .satisfies(e -> assertThat(((MpsException) e).reason()).isEqualTo(Reason.NOT_APPLIED))
                .hasMessageContaining("read back 2048");
        assertThat(mps.defaultPinnedMemLimit(0)).isEqualTo(2048); // 2560M reads back as 2G on the H200
        long server = mps.connectClient(11);
        assertThatThrownBy(() -> mps.setServerPinnedMemLimit(server, 0, 5632)).isInstanceOf(MpsException.class);
        assertThat(mps.serverLimits()).containsEntry(server, java.util.Map.of(0, 5120L));
    }

    @Test void liveServerLimitChange_andUnknownServer() {
        long server = mps.connectClient(11);
        mps.setServerPinnedMemLimit(server, 0, 6144);
        assertThat(mps.serverPinnedMemLimit(server, 0)).isEqualTo(6144);
        assertThatThrownBy(() -> mps.setServerPinnedMemLimit(999999, 0, 1))
                .satisfies(e -> assertThat(((MpsException) e).reason()).isEqualTo(Reason.SERVER_NOT_FOUND));
    }

    @Test void crash_endsServers_restart_losesSettings() {
        mps.setDefaultPinnedMemLimit(0, 3072);
        mps.connectClient(11);
        mps.crash();
        assertThat(mps.daemonUp()).isFalse();
        assertThatThrownBy(mps::serverPids).satisfies(e -> assertThat(((MpsException) e).reason()).isEqualTo(Reason.DAEMON_DOWN));
        mps.restart();
        assertThat(mps.serverPids()).isEmpty();
        assertThat(mps.defaultPinnedMemLimit(0)).isEqualTo(-1);
    }

    @Test void commandsRecordedInControlLanguage_andInjectedFailures() {
        mps.failNext("set_default_active_thread_percentage", Reason.UNKNOWN_COMMAND);
        assertThatThrownBy(() -> mps.setDefaultActiveThreadPercentage(30)).isInstanceOf(MpsException.class);
        mps.setDefaultActiveThreadPercentage(30);
        long server = mps.connectClient(7);
        mps.terminateClient(server, 7);
        assertThat(mps.clientPids(server)).isEmpty();
        assertThat(mps.commands()).contains("set_default_active_thread_percentage 30", "terminate_client " + server + " 7");
        assertThat(mps.defaultActiveThreadPercentage()).isEqualTo(30);
    }

    @Test void quit_takesTheDaemonDown_andRunsTheHook() {
        boolean[] quit = {false};
        mps.onQuit(() -> quit[0] = true);
        mps.quit();
        assertThat(quit[0]).isTrue();
        assertThat(mps.daemonUp()).isFalse();
    }

    /** Measured: one client's fault takes every client of the same server down at once; the server refuses new ones until they have all exited. */
    @Test void fault_everyClientOfThatServerFaulted_newClientsRefusedUntilAllExited() {
        FakeProcesses p = mps.processes();
        long server = mps.connectClient(11);
        mps.connectClient(12);
        assertThat(mps.fault(12)).containsExactly(11L, 12L);
        assertThat(mps.xidVictims()).containsExactly(11L); // the kernel names the server's first client, not the culprit
        assertThat(mps.tearingDown(server)).isTrue();
        assertThat(mps.serverPids()).containsExactly(server); // get_server_list keeps listing it
        assertThat(mps.connect(13, 100)).isEqualTo(new FakeMpsControl.Connection.Refused(FakeMpsControl.TEARDOWN_LINE));
        p.exit(12);
        assertThat(mps.connect(14, 100)).isInstanceOf(FakeMpsControl.Connection.Refused.class); // 11 is still alive
        p.kill(11);
        assertThat(mps.connect(15, 100)).isEqualTo(new FakeMpsControl.Connection.Served(server));
    }

    @Test void twoDaemons_faultInOne_otherUntouched() {
        FakeMpsNode node = new FakeMpsNode(1);
        java.nio.file.Path a = java.nio.file.Path.of("/run/a/pipe"), b = java.nio.file.Path.of("/run/b/pipe");
        node.start(new io.mpshare.mps.DaemonLauncher.Spec(a, a, java.util.Map.of("CUDA_VISIBLE_DEVICES", node.gpu(0))));
        node.start(new io.mpshare.mps.DaemonLauncher.Spec(b, b, java.util.Map.of("CUDA_VISIBLE_DEVICES", node.gpu(0))));
        long a1 = node.client(a, 1000, 100);
        long b1 = node.client(b, 1001, 100); // two UIDs served at once: one per daemon
        node.fault(a1);
        assertThat(node.daemon(b).tearingDown(node.daemon(b).serverPids().getFirst())).isFalse();
        assertThat(node.tryClient(b, 1001)).isInstanceOf(FakeMpsControl.Connection.Served.class);
        assertThat(node.tryClient(a, 1000)).isInstanceOf(FakeMpsControl.Connection.Refused.class);
        assertThat(node.nvml().drainXids()).singleElement().satisfies(x -> assertThat(x.xid()).isEqualTo(31));
        assertThat(node.processes().alive(b1)).isTrue();
    }

    @Test void oneUidPerServerAtATime_otherUidWaitsWhileClientsRun() {
        FakeProcesses p = mps.processes();
        p.spawnAt(21, 1, 1000, "a");
        p.spawnAt(22, 1, 1001, "b");
        mps.connectClient(21);
        assertThat(mps.connect(22, 100)).isEqualTo(new FakeMpsControl.Connection.Waiting(1000));
        p.exit(21);
        assertThat(mps.connect(22, 100)).isInstanceOf(FakeMpsControl.Connection.Served.class); // the idle server of UID 1000 was stopped
        assertThat(mps.serverPids()).hasSize(1);
    }

    @Test void heldControlConnections_stopAnswering_untilTheHolderExits() {
        long holder = mps.processes().spawn(1, 65534, "hold");
        mps.holdConnections(holder, 129);
        assertThat(mps.daemonUp()).isTrue();
        mps.holdConnections(holder, 1);
        assertThatThrownBy(mps::serverPids).satisfies(e -> assertThat(((MpsException) e).reason()).isEqualTo(Reason.TIMEOUT));
        assertThat(mps.holders()).singleElement().satisfies(h -> assertThat(h.connections()).isEqualTo(130));
        mps.processes().exit(holder);
        assertThat(mps.serverPids()).isEmpty();
    }

    /** Measured: 50 % on the server → 66 SMs whatever the env asks; env 30 → 38; a server started at 100 % stays there. */
    @Test void sms_serverPercentageIsACeilingTheEnvCannotPass() {
        mps.setDefaultActiveThreadPercentage(50);
        long server = mps.connectClient(11);
        assertThat(mps.smsSeen(11)).isEqualTo(66);
        mps.connect(12, 30);
        assertThat(mps.smsSeen(12)).isEqualTo(38);
        mps.setDefaultActiveThreadPercentage(25);
        assertThat(mps.serverActiveThreadPercentage(server)).isEqualTo(50.0); // the default reaches only servers started after it
    }
}
