package io.mpshare.mps;

import io.mpshare.mps.MpsException.Reason;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.InstantSource;
import java.util.Map;
import java.util.OptionalInt;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * The supervisor's API over its real unix socket: the fake nvidia-cuda-mps-control script as the daemon (real
 * processes), {@link SupervisorSocketServer} on {@code <run>/green/supervisor.sock}, read and driven by
 * {@link SupervisorStatusClient#forColourSocket}.
 */
class SupervisorSocketIT {
    @TempDir Path tmp;
    ScheduledExecutorService executor = Executors.newSingleThreadScheduledExecutor();
    MpsSupervisor supervisor;
    SupervisorSocketServer server;
    SupervisorStatusClient client;
    Path run;
    Path pipe;

    @BeforeEach void setUp() throws IOException {
        Path bin = FakeBinary.install(tmp.resolve("bin"));
        run = tmp.resolve("run");
        SupervisorConfig config = new SupervisorConfig(Colour.GREEN, run, "0", OptionalInt.empty(), Map.of(0, 4096L),
                new Backoff(Duration.ofMillis(100), Duration.ofSeconds(1)), Duration.ofMinutes(5),
                Duration.ofMillis(50), 100, Duration.ofMillis(200), 3, Duration.ofSeconds(2));
        pipe = config.pipeDir();
        ProcessMpsControl control = new ProcessMpsControl(new ProcessMpsControl.Config(bin, pipe, config.logDir(), Duration.ofSeconds(5)));
        SupervisorMetrics metrics = new SupervisorMetrics(Colour.GREEN);
        supervisor = new MpsSupervisor(config, ProcessMpsControl.foregroundLauncher(bin), control, executor, InstantSource.system(), metrics);
        server = new SupervisorSocketServer(supervisor, metrics, Colour.GREEN.supervisorSocket(run), Duration.ofSeconds(1),
                SupervisorSocketServer.DEFAULT_BUSY_LIMIT).start();
        client = SupervisorStatusClient.forColourSocket(Colour.GREEN, run, Duration.ofSeconds(30));
    }

    @AfterEach void tearDown() {
        supervisor.stop(true).orTimeout(10, TimeUnit.SECONDS).exceptionally(e -> null).join();
        server.close();
        executor.shutdownNow();
    }

    @Test void socket_besideThePipeDirectory_ownerOnly() throws IOException {
        Path socket = run.resolve("green").resolve("supervisor.sock");
        assertThat(server.socket()).isEqualTo(socket);
        assertThat(socket.startsWith(pipe)).isFalse(); // client containers mount only the pipe directory
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(socket))).isEqualTo("rw-------");
    }

    @Test void statusHeartbeatAndCeiling_overTheSocket() throws Exception {
        supervisor.start();
        await().atMost(Duration.ofSeconds(20)).until(() -> client.status().ready());
        assertThat(client.heartbeat().ready()).isTrue();
        assertThat(client.status().ceilingsMib()).isEqualTo(Map.of(0, 4096L));

        Files.writeString(pipe.resolve("servers"), "461\n");
        Files.writeString(pipe.resolve("clients.461"), "1001\n");
        long pid = client.status().daemonPid();
        SupervisorStatus changed = client.setCeiling(0, 6144);
        assertThat(changed.ceilingsMib()).containsEntry(0, 6144L);
        assertThat(Files.readString(pipe.resolve("limit.461.0")).strip()).isEqualTo("6144M");
        assertThat(Files.readString(pipe.resolve("default.0")).strip()).isEqualTo("6144M");
        assertThat(client.heartbeat().daemonPid()).isEqualTo(pid); // live: no restart
        Files.delete(pipe.resolve("servers"));
    }

    @Test void badRequest_answersWithTheReason() {
        assertThatThrownBy(() -> client.setCeiling(0, 0)).isInstanceOf(MpsException.class)
                .hasMessageContaining("answered 400").hasMessageContaining("N > 0");
    }

    @Test void heartbeat_supervisorThreadStuck_timeoutWhileStatusStillAnswers() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        executor.execute(() -> {
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        try {
            assertThat(client.status().phase()).isEqualTo("STOPPED"); // the published snapshot is still there
            assertThatThrownBy(client::heartbeat).isInstanceOf(MpsException.class)
                    .satisfies(e -> assertThat(((MpsException) e).reason()).isEqualTo(Reason.TIMEOUT))
                    .hasMessageContaining("hung or stopped");
        } finally {
            release.countDown();
        }
        assertThat(client.heartbeat().phase()).isEqualTo("STOPPED");
    }

    @Test void client_supervisorStopped_timesOutInsteadOfHanging() throws IOException {
        // a socket whose owner never accepts: what a SIGSTOPped supervisor looks like from outside
        Path frozen = tmp.resolve("frozen.sock");
        try (ServerSocketChannel s = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            s.bind(UnixDomainSocketAddress.of(frozen), 4);
            SupervisorStatusClient c = SupervisorStatusClient.overSocket(frozen, Duration.ofMillis(300));
            assertThatThrownBy(c::heartbeat).isInstanceOf(MpsException.class)
                    .satisfies(e -> assertThat(((MpsException) e).reason()).isEqualTo(Reason.TIMEOUT))
                    .hasMessageContaining("did not answer");
        }
    }

    @Test void client_noSocket_daemonDownWithThePath() {
        SupervisorStatusClient c = SupervisorStatusClient.forColourSocket(Colour.BLUE, run, Duration.ofSeconds(1));
        assertThatThrownBy(c::status).isInstanceOf(MpsException.class)
                .satisfies(e -> assertThat(((MpsException) e).reason()).isEqualTo(Reason.DAEMON_DOWN))
                .hasMessageContaining(run.resolve("blue/supervisor.sock").toString());
    }

    @Test void start_secondServerOnALiveSocket_refused_staleSocketReplaced() throws IOException {
        SupervisorSocketServer second = new SupervisorSocketServer(supervisor, new SupervisorMetrics(Colour.GREEN), server.socket());
        assertThatThrownBy(second::start).isInstanceOf(IOException.class).hasMessageContaining("another supervisor already serves");
        server.close();
        Files.createFile(server.socket()); // a stale file where the socket was
        SupervisorSocketServer third = new SupervisorSocketServer(supervisor, new SupervisorMetrics(Colour.GREEN), server.socket()).start();
        try {
            assertThat(client.status().colour()).isEqualTo("green");
        } finally {
            third.close();
        }
        assertThat(server.socket()).doesNotExist();
    }
}
