package io.mpshare.deviceplugin.health;

import io.mpshare.deviceplugin.devices.HealthState;
import io.mpshare.mps.Colour;
import io.mpshare.mps.MpsSupervisor;
import io.mpshare.mps.SupervisorConfig;
import io.mpshare.mps.SupervisorMetrics;
import io.mpshare.mps.SupervisorSocketServer;
import io.mpshare.mps.fake.FakeDaemonLauncher;
import io.mpshare.mps.fake.FakeMpsControl;
import io.mpshare.testing.ManualScheduler;
import io.mpshare.nvml.fake.FakeNvml;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Health from the daemon's real state (issue 15 item 4), through the supervisor's real unix socket: the health monitor
 * runs on a manual clock (its 500 ms period), the supervisor on its own thread over a modelled daemon. The socket
 * deadlines here are generous (loaded 2-core machines); the detection bound is the production arithmetic: one 500 ms
 * period plus {@link SupervisorSocketProbe#DEFAULT_DEADLINE}.
 */
class SupervisorSocketProbeIT {
    @TempDir Path run;
    final ScheduledExecutorService supervisorThread = Executors.newSingleThreadScheduledExecutor();
    final FakeMpsControl mps = new FakeMpsControl();
    final FakeDaemonLauncher launcher = new FakeDaemonLauncher(mps);
    final ManualScheduler clock = new ManualScheduler();
    final List<Long> zombies = new ArrayList<>();
    MpsSupervisor supervisor;
    SupervisorSocketServer socket;
    HealthMonitor monitor;
    final List<Instant> unhealthyAt = new ArrayList<>();

    @BeforeEach void setUp() throws Exception {
        mps.crash();
        supervisor = new MpsSupervisor(SupervisorConfig.defaults(Colour.BLUE, run), launcher, mps, supervisorThread, InstantSource.system(),
                new SupervisorMetrics(Colour.BLUE));
        socket = new SupervisorSocketServer(supervisor, new SupervisorMetrics(Colour.BLUE), Colour.BLUE.supervisorSocket(run),
                Duration.ofSeconds(1), SupervisorSocketServer.DEFAULT_BUSY_LIMIT).start();
        supervisor.start();
        ProcessLiveness liveness = pid -> !zombies.contains(pid);
        monitor = new HealthMonitor(new FakeNvml().addH200(), new SupervisorSocketProbe(run, () -> "blue", Duration.ofSeconds(10), liveness,
                clock, SupervisorSocketProbe.DEFAULT_UNANSWERED_GRACE),
                clock, Duration.ofMinutes(10));
        monitor.addListener(h -> { if (!h.daemonUp()) unhealthyAt.add(clock.instant()); });
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!supervisor.status().ready() && System.nanoTime() < end) java.util.concurrent.locks.LockSupport.parkNanos(5_000_000);
        monitor.start(clock, Duration.ofMillis(500));
        clock.advance(Duration.ofSeconds(1));
        assertThat(monitor.current().daemonUp()).as("healthy to begin with: " + monitor.current().reason()).isTrue();
    }

    @AfterEach void tearDown() {
        socket.close();
        supervisorThread.shutdownNow();
    }

    @Test void supervisorHung_daemonStillRunning_healthyThroughTheGrace_unhealthyAfterIt() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        supervisorThread.execute(() -> {
            try { release.await(); } catch (InterruptedException e) { Thread.currentThread().interrupt(); }
        });
        try {
            Instant hung = clock.instant();
            clock.advance(Duration.ofMillis(500)); // one health period: the supervisor's 503, the daemon it named still runs
            assertThat(unhealthyAt).as("one missed heartbeat is slow, not hung").isEmpty();
            clock.advance(SupervisorSocketProbe.DEFAULT_UNANSWERED_GRACE);
            assertThat(unhealthyAt).hasSize(1);
            assertThat(Duration.between(hung, unhealthyAt.getFirst()).plus(SupervisorSocketProbe.DEFAULT_DEADLINE))
                    .isLessThanOrEqualTo(SupervisorSocketProbe.DEFAULT_UNANSWERED_GRACE.plus(Duration.ofSeconds(2)));
            assertThat(monitor.current().reason()).contains("did not answer");
        } finally {
            release.countDown();
        }
        clock.advance(Duration.ofMillis(500));
        assertThat(monitor.current().daemonUp()).isTrue();
    }

    @Test void supervisorHung_daemonGone_unhealthyAtTheNextPoll_withinTwoSeconds() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        supervisorThread.execute(() -> {
            try { release.await(); } catch (InterruptedException e) { Thread.currentThread().interrupt(); }
        });
        try {
            Instant hung = clock.instant();
            zombies.add(supervisor.status().daemonPid()); // the daemon died while its supervisor hangs
            clock.advance(Duration.ofMillis(500));
            assertThat(unhealthyAt).hasSize(1);
            assertThat(Duration.between(hung, unhealthyAt.getFirst()).plus(SupervisorSocketProbe.DEFAULT_DEADLINE)).isLessThanOrEqualTo(Duration.ofSeconds(2));
        } finally {
            release.countDown();
        }
    }

    @Test void daemonAZombie_supervisorStillSaysReady_unhealthy() {
        zombies.add(supervisor.status().daemonPid()); // killed while its parent does not reap it
        clock.advance(Duration.ofMillis(500));
        HealthState h = monitor.current();
        assertThat(h.daemonUp()).isFalse();
        assertThat(h.reason()).contains("not running (exited or a zombie)");
    }

    @Test void supervisorGone_unhealthy() {
        socket.close();
        clock.advance(Duration.ofMillis(500));
        assertThat(monitor.current().daemonUp()).isFalse();
        assertThat(monitor.current().reason()).contains("supervisor.sock");
    }

    @Test void daemonDown_supervisorSaysNotReady_unhealthy() {
        launcher.exitCurrent(137);
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (supervisor.status().ready() && System.nanoTime() < end) java.util.concurrent.locks.LockSupport.parkNanos(1_000_000);
        clock.advance(Duration.ofMillis(500));
        assertThat(monitor.current().daemonUp()).isFalse();
        assertThat(monitor.current().reason()).contains("not ready");
    }
}
