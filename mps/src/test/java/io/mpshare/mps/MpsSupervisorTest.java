package io.mpshare.mps;

import io.mpshare.mps.MpsException.Reason;
import io.mpshare.mps.MpsSupervisor.StopResult;
import io.mpshare.mps.fake.FakeDaemonLauncher;
import io.mpshare.mps.fake.FakeMpsControl;
import io.mpshare.testing.ManualScheduler;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.OptionalInt;
import java.util.concurrent.CompletableFuture;

import static org.assertj.core.api.Assertions.assertThat;

/** The supervisor with a fake daemon, a fake control daemon and a manual clock: no process, no sleep. */
class MpsSupervisorTest {
    @TempDir Path runDir;
    ManualScheduler clock = new ManualScheduler();
    FakeMpsControl mps = new FakeMpsControl();
    FakeDaemonLauncher launcher = new FakeDaemonLauncher(mps);
    SupervisorMetrics metrics = new SupervisorMetrics(Colour.BLUE);
    SupervisorConfig config;
    MpsSupervisor supervisor;

    @BeforeEach void setUp() {
        mps.crash(); // no daemon until the supervisor starts one
        config = SupervisorConfig.defaults(Colour.BLUE, runDir).withVisibleDevices("0,1")
                .withThreadPercentage(OptionalInt.of(100)).withCeilings(Map.of(0, 8192L));
        supervisor = new MpsSupervisor(config, launcher, mps, clock, clock, metrics);
    }

    private void startAndSettle() {
        supervisor.start();
        clock.advance(Duration.ofMillis(200)); // the first probe
    }

    private Path marker() { return Colour.BLUE.readyMarker(runDir); }

    @Test void start_launchesForeground_appliesSettings_writesMarker() throws Exception {
        startAndSettle();

        assertThat(launcher.starts()).singleElement().satisfies(s -> {
            assertThat(s.pipeDir()).isEqualTo(runDir.resolve("blue/pipe"));
            assertThat(s.logDir()).isEqualTo(runDir.resolve("blue/log"));
            assertThat(s.extraEnv()).containsEntry("CUDA_VISIBLE_DEVICES", "0,1");
        });
        assertThat(mps.commands()).contains("set_default_active_thread_percentage 100", "set_default_device_pinned_mem_limit 0 8192M");
        SupervisorStatus s = supervisor.status();
        assertThat(s.ready()).isTrue();
        assertThat(s.daemonUp()).isTrue();
        assertThat(s.phase()).isEqualTo("UP");
        assertThat(s.ceilingsMib()).containsEntry(0, 8192L);
        assertThat(Files.readString(marker()).strip()).isEqualTo(String.valueOf(launcher.current().pid()));
        assertThat(SupervisorStatusClient.readFile(Colour.BLUE.statusFile(runDir))).isEqualTo(s);
    }

    /** Regression: the start-up line printed {@code threads OptionalInt[100]} / {@code OptionalInt.empty}. */
    @Test void upLogLine_cleanValues() {
        java.util.List<String> lines = new java.util.ArrayList<>();
        java.util.logging.Handler h = new java.util.logging.Handler() {
            @Override public void publish(java.util.logging.LogRecord r) { lines.add(r.getMessage()); }
            @Override public void flush() {}
            @Override public void close() {}
        };
        java.util.logging.Logger log = java.util.logging.Logger.getLogger(DaemonKeeper.class.getName());
        log.addHandler(h);
        try {
            startAndSettle();
        } finally {
            log.removeHandler(h);
        }
        assertThat(lines).anySatisfy(l -> assertThat(l).contains("active thread percentage 100 %", "ceilings GPU 0: 8 GiB"));
        assertThat(lines).noneMatch(l -> l.contains("Optional"));
    }

    @Test void ping_completesOnlyWhenTheSupervisorThreadRuns() throws Exception {
        startAndSettle();
        CompletableFuture<SupervisorStatus> beat = supervisor.ping();
        assertThat(beat).isNotDone(); // the supervisor's thread has not run: a stuck thread never answers
        clock.runDue();
        assertThat(beat.get().ready()).isTrue();
        assertThat(beat.get().updatedAt()).isEqualTo(clock.instant().toString());
    }

    @Test void daemonExits_markerGone_restartedAfterBackoff_settingsReapplied() {
        startAndSettle();
        mps.clearCommands();

        launcher.exitCurrent(1);
        clock.runDue();
        assertThat(marker()).doesNotExist();
        assertThat(supervisor.status().ready()).isFalse();
        assertThat(supervisor.status().phase()).isEqualTo("BACKOFF");
        assertThat(supervisor.status().lastError()).contains("exited with code 1");
        assertThat(clock.nextDelay()).isEqualTo(Duration.ofSeconds(1));

        clock.advance(Duration.ofSeconds(1).plusMillis(200));
        assertThat(launcher.starts()).hasSize(2);
        assertThat(supervisor.status().ready()).isTrue();
        assertThat(supervisor.status().restarts()).isEqualTo(1);
        assertThat(mps.defaultLimits()).containsEntry(0, 8192L); // the fresh daemon had lost it
        assertThat(marker()).exists();
    }

    @Test void repeatedExits_backoffDoubles_thenResetsAfterStableRun() {
        startAndSettle();
        Duration[] expected = {Duration.ofSeconds(1), Duration.ofSeconds(2), Duration.ofSeconds(4), Duration.ofSeconds(8)};
        for (Duration d : expected) {
            launcher.exitCurrent(1);
            clock.runDue();
            assertThat(clock.nextDelay()).isEqualTo(d);
            clock.advance(d.plusMillis(200));
            assertThat(supervisor.status().ready()).isTrue();
        }
        clock.advance(config.stableAfter());
        launcher.exitCurrent(1);
        clock.runDue();
        assertThat(clock.nextDelay()).isEqualTo(Duration.ofSeconds(1));
    }

    @Test void startFails_retriedWithBackoff_errorReported() {
        launcher.failStarts(2);
        supervisor.start();
        clock.runDue();
        assertThat(supervisor.status().lastError()).contains("could not start").contains("injected start failure");
        assertThat(clock.nextDelay()).isEqualTo(Duration.ofSeconds(1));
        clock.advance(Duration.ofSeconds(1));
        assertThat(clock.nextDelay()).isEqualTo(Duration.ofSeconds(2));
        clock.advance(Duration.ofSeconds(2).plusMillis(200));
        assertThat(supervisor.status().ready()).isTrue();
        assertThat(supervisor.status().restarts()).isEqualTo(2);
    }

    @Test void daemonNeverAnswers_killedAndRestarted() {
        launcher.answerAfterStart(false);
        supervisor.start();
        clock.advance(Duration.ofMillis(200L * config.maxProbes()));
        assertThat(supervisor.status().lastError()).contains("did not answer");
        assertThat(supervisor.status().phase()).isEqualTo("BACKOFF");
        launcher.answerAfterStart(true);
        clock.advance(Duration.ofSeconds(1).plusMillis(200));
        assertThat(supervisor.status().ready()).isTrue();
    }

    @Test void settingRefused_notReady_retriedUntilApplied() {
        mps.failNext("set_default_device_pinned_mem_limit", Reason.UNKNOWN_COMMAND);
        startAndSettle();
        assertThat(supervisor.status().ready()).isFalse();
        assertThat(supervisor.status().phase()).isEqualTo("STARTING");
        assertThat(supervisor.status().lastError()).contains("applying settings");
        assertThat(marker()).doesNotExist();

        clock.advance(Duration.ofSeconds(1).plusMillis(200));
        assertThat(supervisor.status().ready()).isTrue();
        assertThat(launcher.starts()).hasSize(1); // never restarted to apply a setting
    }

    @Test void setCeiling_appliesToRunningServersAndDefault_withoutRestart() {
        startAndSettle();
        long server = mps.connectClient(4242);
        mps.clearCommands();

        CompletableFuture<SupervisorStatus> f = supervisor.setCeiling(0, 12288);
        clock.runDue();

        assertThat(f).isCompleted();
        assertThat(f.join().ceilingsMib()).containsEntry(0, 12288L);
        assertThat(mps.commands()).contains("set_default_device_pinned_mem_limit 0 12288M",
                "set_device_pinned_mem_limit " + server + " 0 12288M");
        assertThat(mps.serverPinnedMemLimit(server, 0)).isEqualTo(12288);
        assertThat(launcher.starts()).hasSize(1);
        assertThat(metricsText()).contains("mpshare_mps_ceiling_changes_total{colour=\"blue\"} 1.0");
    }

    @Test void setCeiling_rejectedByDaemon_previousKept_stillReady() {
        startAndSettle();
        mps.failNext("set_default_device_pinned_mem_limit 0", Reason.NOT_APPLIED);

        CompletableFuture<SupervisorStatus> f = supervisor.setCeiling(0, 4096);
        clock.runDue();
        assertThat(f).isCompletedExceptionally();
        assertThat(supervisor.status().ceilingsMib()).containsEntry(0, 8192L);
        assertThat(supervisor.status().ceilingsPending()).isEmpty();
        assertThat(supervisor.status().ready()).isTrue();
        assertThat(supervisor.status().lastError()).contains("rejected").contains("8192 MiB kept");
    }

    @Test void setCeiling_daemonNotAnswering_failsAndStaysPending_retriedByHealthCheck() {
        startAndSettle();
        mps.failNext("set_default_device_pinned_mem_limit 1", Reason.TIMEOUT);

        CompletableFuture<SupervisorStatus> f = supervisor.setCeiling(1, 4096);
        clock.runDue();
        assertThat(f).isCompletedExceptionally();
        assertThat(supervisor.status().ceilingsPending()).containsExactly(1);
        assertThat(supervisor.status().ready()).isFalse();
        assertThat(marker()).doesNotExist();

        clock.advance(config.healthInterval());
        assertThat(supervisor.status().ceilingsPending()).isEmpty();
        assertThat(supervisor.status().ready()).isTrue();
        assertThat(marker()).exists();
        assertThat(mps.defaultLimits()).containsEntry(1, 4096L);
    }

    /** Regression, H200 2026-12-01: a UID-1000 client raised its own server's ceiling to 100G and the next client got it. */
    @Test void healthCheck_serverCeilingRaisedByAClient_putBack() {
        startAndSettle();
        long server = mps.connectClient(4242);
        clock.advance(config.healthInterval());
        mps.setServerPinnedMemLimit(server, 0, 102400); // what the tenant's set_device_pinned_mem_limit does
        mps.clearCommands();

        clock.advance(config.healthInterval());

        assertThat(mps.serverPinnedMemLimit(server, 0)).isEqualTo(8192);
        assertThat(mps.commands()).contains("set_device_pinned_mem_limit " + server + " 0 8192M");
        assertThat(launcher.starts()).hasSize(1);
        assertThat(metricsText()).contains("mpshare_mps_ceiling_restores_total{colour=\"blue\"} 1.0");
        mps.clearCommands();
        clock.advance(config.healthInterval());
        assertThat(mps.commands()).noneMatch(c -> c.startsWith("set_device_pinned_mem_limit")); // nothing changed: nothing set
    }

    @Test void healthCheck_readsServersAndClients() {
        startAndSettle();
        long server = mps.connectClient(4242);
        clock.advance(config.healthInterval());
        assertThat(supervisor.status().servers()).singleElement()
                .satisfies(s -> assertThat(s).isEqualTo(new SupervisorStatus.Server(server, java.util.List.of(4242L))));
        assertThat(supervisor.status().clients()).containsExactly(4242L);
    }

    /**
     * A daemon on a loaded node is slow to answer one health read and answers the next: readiness (the marker, daemonUp,
     * the gauge) holds through that one miss, so the device plugin does not turn every device Unhealthy for it; the
     * second miss in a row drops it, and the next answer brings it back.
     */
    @Test void healthCheck_oneReadTimedOut_staysReady_theSecondInARowIsNotReady() {
        startAndSettle();

        mps.failNext("get_server_list", Reason.TIMEOUT);
        clock.advance(config.healthInterval());
        SupervisorStatus one = supervisor.status();
        assertThat(one.lastError()).contains("health check").contains("injected failure"); // said, not hidden
        assertThat(one.ready()).isTrue();
        assertThat(one.daemonUp()).isTrue();
        assertThat(marker()).exists();
        assertThat(metricsText()).contains("mpshare_mps_daemon_up{colour=\"blue\"} 1.0");

        clock.advance(config.healthInterval()); // answers
        mps.failNext("get_server_list", Reason.TIMEOUT);
        clock.advance(config.healthInterval());
        assertThat(supervisor.status().ready()).as("a miss after an answer is a first miss again").isTrue();

        mps.failNext("get_server_list", Reason.TIMEOUT);
        clock.advance(config.healthInterval());
        SupervisorStatus two = supervisor.status();
        assertThat(two.phase()).isEqualTo("UP");
        assertThat(two.ready()).isFalse();
        assertThat(two.daemonUp()).isFalse();
        assertThat(marker()).doesNotExist();

        clock.advance(config.healthInterval());
        assertThat(supervisor.status().ready()).isTrue();
        assertThat(marker()).exists();
        assertThat(launcher.starts()).hasSize(1);
    }

    /** A read that finds nobody on the pipe is not a slow daemon: not ready at once. */
    @Test void healthCheck_nobodyOnThePipe_notReadyAtTheFirstMiss() {
        startAndSettle();
        mps.failNext("get_server_list", Reason.DAEMON_DOWN);
        clock.advance(config.healthInterval());
        assertThat(supervisor.status().ready()).isFalse();
        assertThat(marker()).doesNotExist();
        clock.advance(config.healthInterval());
        assertThat(supervisor.status().ready()).isTrue();
    }

    /** The read that puts a raised ceiling back keeps the daemon ready, and so does one that timed out while doing it. */
    @Test void healthCheck_puttingACeilingBack_readyThroughout_evenWhenThatReadTimesOut() {
        startAndSettle();
        long server = mps.connectClient(4242);
        clock.advance(config.healthInterval());
        mps.setServerPinnedMemLimit(server, 0, 102400); // a client of the server's UID raised it
        mps.failNext("set_device_pinned_mem_limit " + server, Reason.TIMEOUT);

        clock.advance(config.healthInterval());
        assertThat(mps.serverPinnedMemLimit(server, 0)).isEqualTo(102400); // the put-back timed out
        assertThat(supervisor.status().ready()).isTrue();
        assertThat(marker()).exists();

        clock.advance(config.healthInterval());
        assertThat(mps.serverPinnedMemLimit(server, 0)).isEqualTo(8192);
        assertThat(supervisor.status().ready()).isTrue();
        assertThat(marker()).exists();
    }

    @Test void healthCheck_silentWithoutClients_restartedAndSaysWhy() {
        startAndSettle();
        mps.crash(); // process alive, pipe dead, no MPS server: nothing runs on it
        clock.advance(config.healthInterval());
        assertThat(supervisor.status().ready()).isFalse();
        assertThat(marker()).doesNotExist();
        clock.advance(config.healthInterval().multipliedBy(config.maxMissedHealthChecks()));
        assertThat(supervisor.status().lastError()).contains("exited with code 137")
                .contains("stopped answering for 3 health checks and it has no MPS server, so no client: a restart loses nothing");
        clock.advance(Duration.ofSeconds(2));
        assertThat(supervisor.status().ready()).isTrue();
        assertThat(launcher.starts()).hasSize(2);
    }

    /**
     * F15, confirmed on the H200: a UID-65534 process held about 130 connections on the world-writable control socket, the
     * daemon stopped answering, and the supervisor killed it after 3 missed checks, which ends every client of the node.
     */
    @Test void healthCheck_stalledWithClients_neverKilled() {
        startAndSettle();
        long client = mps.connectClient(4242);
        clock.advance(config.healthInterval());
        long holder = mps.processes().spawn(1, 65534, "python3 /tmp/hold.py");
        mps.holdConnections(holder, FakeMpsControl.CONTROL_CONNECTIONS);

        clock.advance(config.healthInterval().multipliedBy(config.maxMissedHealthChecks() + 5));

        SupervisorStatus s = supervisor.status();
        assertThat(launcher.current().isAlive()).isTrue();
        assertThat(launcher.starts()).hasSize(1);
        assertThat(mps.processes().alive(client)).isTrue();
        assertThat(mps.processes().killed()).isEmpty();
        assertThat(s.phase()).isEqualTo("STALLED");
        assertThat(s.ready()).isFalse();
        assertThat(marker()).doesNotExist(); // the device plugin reports the GPUs Unhealthy: no new pod on a daemon that does not answer
        assertThat(s.stalledBy()).containsExactly(new DomainStatus.Holder(holder, 65534, 130, "python3 /tmp/hold.py"));
        assertThat(s.lastError()).contains("NOT killing it").contains("PID " + holder + " (UID 65534, 130 connections");
        assertThat(metricsText()).contains("mpshare_mps_daemon_stalled{colour=\"blue\",domain=\"node\"} 1.0")
                .contains("mpshare_mps_daemon_stalls_total{colour=\"blue\"} 1.0");

        mps.processes().exit(holder); // the holder is gone: its connections with it
        clock.advance(config.healthInterval().multipliedBy(2));

        assertThat(supervisor.status().phase()).isEqualTo("UP");
        assertThat(supervisor.status().ready()).isTrue();
        assertThat(supervisor.status().stalledBy()).isEmpty();
        assertThat(marker()).exists();
        assertThat(launcher.starts()).hasSize(1);
        assertThat(metricsText()).contains("mpshare_mps_daemon_stalled{colour=\"blue\",domain=\"node\"} 0.0");
    }

    @Test void stop_stalledWithClients_refused() {
        startAndSettle();
        mps.connectClient(4242);
        clock.advance(config.healthInterval());
        mps.holdConnections(mps.processes().spawn(1, 65534, "hold"), FakeMpsControl.CONTROL_CONNECTIONS);

        CompletableFuture<StopResult> f = supervisor.stop(false);
        clock.runDue();

        assertThat(f.join()).isEqualTo(new StopResult.Refused(java.util.List.of(4242L)));
        assertThat(launcher.current().isAlive()).isTrue();
    }

    /** F8: the server's active thread percentage is the enforced share; the default alone does not reach a running server. */
    @Test void threadShare_appliedToEveryRunningServer_andPutBack() {
        config = config.withThreadPercentage(OptionalInt.of(30));
        supervisor = new MpsSupervisor(config, launcher, mps, clock, clock, metrics);
        startAndSettle();
        long server = mps.connectClient(4242);
        mps.setServerActiveThreadPercentage(server, 100); // a client of the server's UID raised it
        mps.clearCommands();

        clock.advance(config.healthInterval());

        assertThat(mps.serverActiveThreadPercentage(server)).isEqualTo(30.0);
        assertThat(mps.commands()).contains("get_active_thread_percentage " + server, "set_active_thread_percentage " + server + " 30");
        assertThat(mps.smsSeen(4242)).isEqualTo(38); // 30 % of 132 SMs, as measured
    }

    @Test void stop_withClients_refusedAndNamesThem() {
        startAndSettle();
        mps.connectClient(4242);
        CompletableFuture<StopResult> f = supervisor.stop(false);
        clock.runDue();
        assertThat(f.join()).isEqualTo(new StopResult.Refused(java.util.List.of(4242L)));
        assertThat(mps.commands()).doesNotContain("quit");
        assertThat(supervisor.status().ready()).isTrue();
    }

    @Test void stop_forced_quitsEvenWithClients() {
        startAndSettle();
        mps.connectClient(4242);
        CompletableFuture<StopResult> f = supervisor.stop(true);
        clock.runDue();
        assertThat(f.join()).isEqualTo(new StopResult.Stopped(0));
        assertThat(mps.commands()).contains("quit");
        assertThat(supervisor.status().phase()).isEqualTo("STOPPED");
        assertThat(marker()).doesNotExist();
        clock.advance(Duration.ofMinutes(5));
        assertThat(launcher.starts()).hasSize(1); // not restarted
    }

    @Test void stop_noClients_quits() {
        startAndSettle();
        CompletableFuture<StopResult> f = supervisor.stop(false);
        clock.runDue();
        assertThat(f.join()).isInstanceOf(StopResult.Stopped.class);
    }

    @Test void staleMarkerFromEarlierRun_removedAtConstruction() throws Exception {
        Files.createDirectories(marker().getParent());
        Files.writeString(marker(), "1\n");
        new MpsSupervisor(config, launcher, mps, clock, clock, new SupervisorMetrics(Colour.BLUE));
        assertThat(marker()).doesNotExist();
    }

    @Test void staleDaemonOnPipe_notStartedOver() {
        mps.restart(); // another daemon already answers on the pipe
        supervisor.start();
        clock.runDue();
        assertThat(launcher.starts()).isEmpty();
        assertThat(supervisor.status().lastError()).contains("already answers");
    }

    @Test void metrics_reportUpAndRestarts() {
        startAndSettle();
        launcher.exitCurrent(1);
        clock.advance(Duration.ofSeconds(2));
        assertThat(metricsText()).contains("mpshare_mps_daemon_up{colour=\"blue\"} 1.0")
                .contains("mpshare_mps_daemon_restarts_total{colour=\"blue\"} 1.0");
    }

    private String metricsText() {
        var out = new java.io.ByteArrayOutputStream();
        try {
            metrics.write(out);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        return out.toString(java.nio.charset.StandardCharsets.UTF_8);
    }
}
