package io.mpshare.mps;

import io.mpshare.mps.MpsSupervisor.StopResult;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.InstantSource;
import java.util.Map;
import java.util.OptionalInt;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * The whole supervisor with real processes: ProcessMpsControl's foreground launcher runs the fake
 * nvidia-cuda-mps-control script as the daemon, control commands go through real short-lived
 * processes, the status endpoint is real HTTP read by SupervisorStatusClient.
 */
class SupervisorIT {
    @TempDir Path tmp;
    ScheduledExecutorService executor = Executors.newSingleThreadScheduledExecutor();
    MpsSupervisor supervisor;
    SupervisorHttp http;
    SupervisorStatusClient client;
    Path pipe;

    @BeforeEach void setUp() throws IOException {
        Path bin = FakeBinary.install(tmp.resolve("bin"));
        SupervisorConfig config = new SupervisorConfig(Colour.GREEN, tmp.resolve("run"), "0", OptionalInt.of(50), Map.of(0, 4096L),
                new Backoff(Duration.ofMillis(100), Duration.ofSeconds(1)), Duration.ofMinutes(5),
                Duration.ofMillis(50), 100, Duration.ofMillis(200), 3, Duration.ofSeconds(2));
        pipe = config.pipeDir();
        ProcessMpsControl control = new ProcessMpsControl(new ProcessMpsControl.Config(bin, pipe, config.logDir(), Duration.ofSeconds(5)));
        SupervisorMetrics metrics = new SupervisorMetrics(Colour.GREEN);
        supervisor = new MpsSupervisor(config, ProcessMpsControl.foregroundLauncher(bin), control, executor, InstantSource.system(), metrics);
        http = new SupervisorHttp(supervisor, metrics, new InetSocketAddress("127.0.0.1", 0));
        http.start();
        client = new SupervisorStatusClient(URI.create("http://127.0.0.1:" + http.port()), Duration.ofSeconds(5));
    }

    @AfterEach void tearDown() {
        supervisor.stop(true).orTimeout(10, java.util.concurrent.TimeUnit.SECONDS).exceptionally(e -> null).join();
        http.close();
        executor.shutdownNow();
    }

    @Test void supervisesRealProcesses_statusCeilingsRestartMetrics() throws Exception {
        supervisor.start();
        await().atMost(Duration.ofSeconds(20)).until(() -> client.status().ready());

        SupervisorStatus s = client.status();
        assertThat(s.colour()).isEqualTo("green");
        assertThat(s.pipeDir()).isEqualTo(pipe.toString());
        assertThat(s.ceilingsMib()).isEqualTo(Map.of(0, 4096L));
        assertThat(s.defaultActiveThreadPercentage()).isEqualTo(50);
        assertThat(Files.readString(pipe.resolve("default.0")).strip()).isEqualTo("4096M");
        assertThat(Files.readString(pipe.resolve("daemon.env"))).contains("/run/green/log").contains("0");

        // a server with a client appears; a live ceiling change reaches it and the default
        Files.writeString(pipe.resolve("servers"), "461\n");
        Files.writeString(pipe.resolve("clients.461"), "1001\n");
        long pidBefore = s.daemonPid();
        SupervisorStatus changed = client.setCeiling(0, 6144);
        assertThat(changed.ceilingsMib()).containsEntry(0, 6144L);
        assertThat(Files.readString(pipe.resolve("limit.461.0")).strip()).isEqualTo("6144M");
        assertThat(Files.readString(pipe.resolve("default.0")).strip()).isEqualTo("6144M");
        assertThat(client.status().daemonPid()).isEqualTo(pidBefore); // no restart
        await().atMost(Duration.ofSeconds(5)).until(() -> client.status().clients().contains(1001L));

        // shutdown refused while a client is connected
        assertThat(supervisor.stop(false).get()).isEqualTo(new StopResult.Refused(java.util.List.of(1001L)));
        Files.delete(pipe.resolve("servers"));

        // the daemon is killed: restarted, settings re-applied
        Files.delete(pipe.resolve("default.0"));
        ProcessHandle.of(pidBefore).orElseThrow().destroyForcibly();
        await().atMost(Duration.ofSeconds(20)).until(() -> {
            SupervisorStatus now = client.status();
            return now.ready() && now.restarts() == 1 && now.daemonPid() != pidBefore;
        });
        assertThat(Files.readString(pipe.resolve("default.0")).strip()).isEqualTo("6144M");

        HttpClient raw = HttpClient.newHttpClient();
        String metrics = raw.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + http.port() + "/metrics")).build(),
                HttpResponse.BodyHandlers.ofString()).body();
        assertThat(metrics).contains("mpshare_mps_daemon_up{colour=\"green\"} 1.0")
                .contains("mpshare_mps_daemon_restarts_total{colour=\"green\"} 1.0")
                .contains("mpshare_mps_ceiling_changes_total{colour=\"green\"} 1.0");
        assertThat(raw.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + http.port() + "/healthz")).build(),
                HttpResponse.BodyHandlers.ofString()).statusCode()).isEqualTo(200);

        assertThat(supervisor.stop(false).get()).isEqualTo(new StopResult.Stopped(0));
        assertThat(Colour.GREEN.readyMarker(tmp.resolve("run"))).doesNotExist();
    }

    @Test void badCeilingRequests_answer400() throws Exception {
        HttpClient raw = HttpClient.newHttpClient();
        var response = raw.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + http.port() + "/ceilings/0"))
                .PUT(HttpRequest.BodyPublishers.ofString("{\"mib\": -3}")).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).isEqualTo(400);
        assertThat(response.body()).contains("mib");
    }

    @Test void client_noSupervisor_daemonDown() {
        SupervisorStatusClient nobody = new SupervisorStatusClient(URI.create("http://127.0.0.1:1"), Duration.ofSeconds(1));
        assertThatThrownBy(nobody::status).isInstanceOf(MpsException.class)
                .satisfies(e -> assertThat(((MpsException) e).reason()).isEqualTo(MpsException.Reason.DAEMON_DOWN));
    }
}
