package io.mpshare.mps;

import io.mpshare.mps.MpsException.Reason;
import io.mpshare.mps.fake.FakeDaemonLauncher;
import io.mpshare.mps.fake.FakeMpsControl;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Busy is not hung: a supervisor thread inside one of its own steps (a slow control command on a loaded machine) keeps
 * answering {@code /heartbeat} with its published status until that step has run {@code busyLimit}; then it is hung.
 * The supervisor's clock is moved by the test; its thread and the socket are real. Deadlines are generous (this runs
 * on loaded 2-core machines): what is tested is the clock-based busy/hung decision, not speed.
 */
class SupervisorHeartbeatIT {
    @TempDir Path run;
    final ScheduledExecutorService thread = Executors.newSingleThreadScheduledExecutor();
    final AtomicReference<Instant> now = new AtomicReference<>(Instant.parse("2026-12-01T10:00:00Z"));
    final CountDownLatch release = new CountDownLatch(1);
    final CountDownLatch entered = new CountDownLatch(1);
    SupervisorSocketServer server;

    /** A daemon whose default-limit change blocks until the test releases it; every other command "takes" {@code each}. */
    final class SlowControl implements MpsControl {
        final FakeMpsControl d = new FakeMpsControl();
        volatile Duration each = Duration.ZERO;

        private void slow() { now.set(now.get().plus(each)); }

        @Override public boolean daemonUp() { slow(); return d.daemonUp(); }
        @Override public List<Long> serverPids() { slow(); return d.serverPids(); }
        @Override public List<Long> clientPids(long serverPid) { return d.clientPids(serverPid); }
        @Override public void setServerPinnedMemLimit(long serverPid, int device, long mib) { d.setServerPinnedMemLimit(serverPid, device, mib); }
        @Override public long defaultPinnedMemLimit(int device) { return d.defaultPinnedMemLimit(device); }
        @Override public void setDefaultActiveThreadPercentage(int percent) { d.setDefaultActiveThreadPercentage(percent); }
        @Override public void terminateClient(long serverPid, long clientPid) { d.terminateClient(serverPid, clientPid); }
        @Override public void quit() { d.quit(); }

        @Override public void setDefaultPinnedMemLimit(int device, long mib) {
            slow();
            entered.countDown();
            try {
                release.await(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            d.setDefaultPinnedMemLimit(device, mib);
        }
    }

    @AfterEach void tearDown() throws InterruptedException {
        release.countDown();
        if (server != null) server.close();
        thread.shutdownNow();
        assertThat(thread.awaitTermination(30, TimeUnit.SECONDS)).isTrue(); // no status file written while the folder goes
    }

    /** At load 15 one start-up step of five commands took 3.9 s: each command's return is progress, so it is busy. */
    @Test void heartbeat_manySlowCommandsInOneStep_busyNotHung() throws IOException, InterruptedException {
        SlowControl control = new SlowControl();
        control.each = Duration.ofMillis(2500); // each command 2.5 s: the step is past the 3 s limit, no single command is
        MpsSupervisor supervisor = new MpsSupervisor(SupervisorConfig.defaults(Colour.BLUE, run).withCeilings(java.util.Map.of(0, 8192L)),
                new FakeDaemonLauncher(control.d), control, thread, now::get, new SupervisorMetrics(Colour.BLUE));
        server = new SupervisorSocketServer(supervisor, new SupervisorMetrics(Colour.BLUE), Colour.BLUE.supervisorSocket(run),
                Duration.ofSeconds(1), Duration.ofSeconds(3)).start(); // 1 s: an idle thread answers in time even at load 25
        control.d.crash();
        supervisor.start();
        assertThat(entered.await(30, TimeUnit.SECONDS)).isTrue(); // probe (daemonUp), then the ceiling: 5 s into the step
        assertThat(supervisor.busyFor()).hasValueSatisfying(d -> assertThat(d).isLessThan(Duration.ofSeconds(3)));
        SupervisorStatusClient client = SupervisorStatusClient.forColourSocket(Colour.BLUE, run, Duration.ofSeconds(30));
        assertThat(client.heartbeat().phase()).isEqualTo("STARTING");
    }

    @Test void heartbeat_stepShorterThanTheBusyLimit_busyNotHung_longer_hung() throws IOException, InterruptedException {
        SlowControl control = new SlowControl();
        InstantSource clock = now::get;
        MpsSupervisor supervisor = new MpsSupervisor(SupervisorConfig.defaults(Colour.BLUE, run), new FakeDaemonLauncher(control.d), control,
                thread, clock, new SupervisorMetrics(Colour.BLUE));
        server = new SupervisorSocketServer(supervisor, new SupervisorMetrics(Colour.BLUE), Colour.BLUE.supervisorSocket(run),
                Duration.ofSeconds(1), Duration.ofSeconds(3)).start(); // 1 s: an idle thread answers in time even at load 25
        SupervisorStatusClient client = SupervisorStatusClient.forColourSocket(Colour.BLUE, run, Duration.ofSeconds(30));

        supervisor.setCeiling(0, 8192); // STOPPED: stored only, no command
        assertThat(client.heartbeat().phase()).isEqualTo("STOPPED");
        control.d.crash(); // no daemon until the supervisor starts one
        supervisor.start(); // launch; the first probe applies the ceiling, and blocks there
        assertThat(entered.await(30, TimeUnit.SECONDS)).isTrue();

        assertThat(supervisor.busyFor()).isPresent();
        assertThat(client.heartbeat().phase()).as("busy for 0 s: the published status").isEqualTo("STARTING");
        now.set(now.get().plusSeconds(2));
        assertThat(client.heartbeat().phase()).as("busy for 2 s < 3 s").isEqualTo("STARTING");
        now.set(now.get().plusSeconds(2));
        assertThatThrownBy(client::heartbeat).isInstanceOf(MpsException.class)
                .satisfies(e -> assertThat(((MpsException) e).reason()).isEqualTo(Reason.TIMEOUT))
                .hasMessageContaining("one step has run for 4000 ms: hung");

        release.countDown();
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        // the status says ready inside the step that applied the ceiling; the step ends just after
        while (!(supervisor.status().ready() && supervisor.busyFor().isEmpty()) && System.nanoTime() < end) {
            java.util.concurrent.locks.LockSupport.parkNanos(2_000_000);
        }
        assertThat(client.heartbeat().ready()).isTrue();
        assertThat(supervisor.busyFor()).isEmpty();
    }
}
