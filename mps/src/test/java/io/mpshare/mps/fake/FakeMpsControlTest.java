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
}
