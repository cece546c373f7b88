package io.mpshare.mps;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Domains with real processes: {@code mpshare mps-control}'s root ({@link SupervisorNode}) with the fake control script
 * as every daemon, the API on the real unix socket, clients and servers as real processes. A server's teardown line in
 * the domain's log gets its client SIGKILLed and the domain serving again; a daemon that stops answering with a live
 * server is STALLED and not killed; a deleted domain quits when its last client is gone.
 */
class DomainProcessesIT {
    static final String ID = "t-0123456789ab";
    @TempDir Path tmp;
    SupervisorNode node;
    SupervisorStatusClient client;
    final List<Process> processes = new ArrayList<>();
    final List<Long> daemons = new ArrayList<>();

    @BeforeEach void setUp() throws IOException {
        Path bin = FakeBinary.install(tmp.resolve("bin"));
        Path run = tmp.resolve("run");
        SupervisorConfig sc = new SupervisorConfig(Colour.BLUE, run, "", OptionalInt.empty(), Map.of(),
                new Backoff(Duration.ofMillis(100), Duration.ofSeconds(1)), Duration.ofMinutes(5),
                Duration.ofMillis(50), 100, Duration.ofMillis(200), 3, Duration.ofSeconds(2));
        node = SupervisorNode.start(new SupervisorNode.Config(sc, Optional.of(bin), Colour.BLUE.supervisorSocket(run), Optional.empty(),
                Duration.ofSeconds(1), false, Duration.ofSeconds(1), false), new PrintStream(new ByteArrayOutputStream()));
        client = SupervisorStatusClient.forColourSocket(Colour.BLUE, run, Duration.ofSeconds(10));
        await().atMost(Duration.ofSeconds(30)).ignoreExceptions().until(() -> client.status().ready());
        daemons.add(client.status().daemonPid());
    }

    @AfterEach void tearDown() {
        node.close();
        processes.forEach(Process::destroyForcibly);
        daemons.forEach(p -> ProcessHandle.of(p).ifPresent(ProcessHandle::destroyForcibly));
    }

    private long sleeper() throws IOException {
        Process p = new ProcessBuilder("sleep", "300").start();
        processes.add(p);
        return p.pid();
    }

    private DomainStatus serving(int share) {
        client.putDomain(ID, new DomainSpec("GPU-it-0", DomainKind.TENANT, 1000, 3000, share));
        await().atMost(Duration.ofSeconds(30)).until(() -> client.domain(ID).orElseThrow().state() == DomainState.SERVING);
        DomainStatus d = client.domain(ID).orElseThrow();
        daemons.add(d.daemonPid());
        return d;
    }

    /** A live server with one live client, as the fake daemon reports them; returns {server, client}. */
    private long[] serverWithClient(Path pipe) throws IOException {
        long server = sleeper(), app = sleeper();
        Files.writeString(pipe.resolve("servers"), server + "\n");
        Files.writeString(pipe.resolve("clients." + server), app + "\n");
        await().atMost(Duration.ofSeconds(30)).until(() -> client.domain(ID).orElseThrow().clients().contains(app));
        return new long[] {server, app};
    }

    @Test void fault_teardownLineInTheDomainsLog_clientKilled_servingAgain() throws IOException {
        DomainStatus d = serving(50);
        Path pipe = Path.of(d.pipeDir());
        long[] sc = serverWithClient(pipe);
        await().atMost(Duration.ofSeconds(10)).until(() -> Files.readString(pipe.resolve("commands.log")).contains("get_active_thread_percentage " + sc[0]));
        assertThat(Files.readString(pipe.resolve("threads")).strip()).isEqualTo("50.0"); // the share, read back on the running server
        assertThat(Files.readString(pipe.resolve("default.0")).strip()).isEqualTo("3072M"); // whole GiB, rounded up

        Files.writeString(DomainPaths.of(Colour.BLUE, tmp.resolve("run"), ID).daemonLog(),
                "[2026-12-01 10:00:03.117 Server " + sc[0] + "] Server teardown in progress. Refusing to accept new client\n",
                StandardOpenOption.CREATE, StandardOpenOption.APPEND);

        await().atMost(Duration.ofSeconds(10)).until(() -> !ProcessHandle.of(sc[1]).map(ProcessHandle::isAlive).orElse(false));
        Files.writeString(pipe.resolve("clients." + sc[0]), ""); // the killed client leaves the server's list
        await().atMost(Duration.ofSeconds(10)).until(() -> client.domain(ID).orElseThrow().state() == DomainState.SERVING);
        DomainStatus after = client.domain(ID).orElseThrow();
        assertThat(after.faults()).isEqualTo(1);
        assertThat(after.lastFault().clients()).containsExactly(sc[1]);
        assertThat(after.lastFault().source()).isEqualTo("log");
        assertThat(ProcessHandle.of(sc[0]).map(ProcessHandle::isAlive)).contains(true); // the server is not the supervisor's to kill
        assertThat(after.daemonPid()).isEqualTo(d.daemonPid());
    }

    @Test void stall_daemonStopsAnsweringWithALiveServer_stalledNotKilled_servingWhenItAnswers() throws IOException {
        DomainStatus d = serving(50);
        Path pipe = Path.of(d.pipeDir());
        serverWithClient(pipe);
        Files.writeString(pipe.resolve("stall"), "");

        await().atMost(Duration.ofSeconds(30)).until(() -> client.domain(ID).orElseThrow().state() == DomainState.STALLED);
        assertThat(client.domain(ID).orElseThrow().lastError()).contains("NOT killing it");
        assertThat(client.status().ready()).isTrue(); // the node daemon and the socket are not held up by it
        assertThat(ProcessHandle.of(d.daemonPid()).map(ProcessHandle::isAlive)).contains(true);

        Files.delete(pipe.resolve("stall"));
        await().atMost(Duration.ofSeconds(30)).until(() -> client.domain(ID).orElseThrow().state() == DomainState.SERVING);
        assertThat(client.domain(ID).orElseThrow().daemonPid()).isEqualTo(d.daemonPid());
    }

    @Test void delete_quitsWhenTheLastClientLeft_folderRemoved() throws IOException {
        DomainStatus d = serving(100);
        Path pipe = Path.of(d.pipeDir());
        long[] sc = serverWithClient(pipe);
        assertThat(client.deleteDomain(ID)).hasValueSatisfying(x -> assertThat(x.state()).isEqualTo(DomainState.DRAINING));
        Files.writeString(pipe.resolve("clients." + sc[0]), "");
        await().atMost(Duration.ofSeconds(30)).until(() -> client.domain(ID).isEmpty());
        await().atMost(Duration.ofSeconds(10)).until(() -> !ProcessHandle.of(d.daemonPid()).map(ProcessHandle::isAlive).orElse(false));
        assertThat(DomainPaths.of(Colour.BLUE, tmp.resolve("run"), ID).dir()).doesNotExist();
    }
}
