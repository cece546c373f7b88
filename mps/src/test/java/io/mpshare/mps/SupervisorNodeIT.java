package io.mpshare.mps;

import io.mpshare.mps.preflight.AlreadyRunning;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * {@code mpshare mps-control}'s root with real processes (the fake control script as the daemon, the API on a real unix
 * socket): the last run's ceilings come back under the flags', SIGTERM's drain quits an idle daemon and leaves one with
 * clients running without its ready marker, the expected start failures say what to change, and the same colour
 * started twice is refused before it touches the first one's files.
 */
class SupervisorNodeIT {
    @TempDir Path tmp;
    final ByteArrayOutputStream console = new ByteArrayOutputStream();
    SupervisorNode node;
    long daemonPid = -1;

    Path runDir() { return tmp.resolve("run"); }

    SupervisorNode.Config config(Map<Integer, Long> flagCeilings, Optional<Path> binary, Duration drainWait) {
        return config(Colour.BLUE, flagCeilings, binary, drainWait);
    }

    SupervisorNode.Config config(Colour colour, Map<Integer, Long> flagCeilings, Optional<Path> binary, Duration drainWait) {
        SupervisorConfig sc = new SupervisorConfig(colour, runDir(), "0", OptionalInt.empty(), flagCeilings,
                new Backoff(Duration.ofMillis(100), Duration.ofSeconds(1)), Duration.ofMinutes(5),
                Duration.ofMillis(50), 100, Duration.ofMillis(200), 3, Duration.ofSeconds(2));
        return new SupervisorNode.Config(sc, binary, colour.supervisorSocket(runDir()), Optional.empty(), Duration.ofSeconds(5), false, drainWait, false);
    }

    SupervisorStatus readyStatus() {
        SupervisorStatusClient client = SupervisorStatusClient.forColourSocket(Colour.BLUE, runDir(), Duration.ofSeconds(5));
        await().atMost(Duration.ofSeconds(20)).ignoreExceptions().until(() -> client.status().ready());
        SupervisorStatus s = client.status();
        daemonPid = s.daemonPid();
        return s;
    }

    String console() { return console.toString(StandardCharsets.UTF_8); }

    @AfterEach void tearDown() {
        if (daemonPid > 0) ProcessHandle.of(daemonPid).ifPresent(ProcessHandle::destroyForcibly);
    }

    @Test void start_lastRunsCeilingsUnderTheFlags_idleDaemonQuitOnClose() throws Exception {
        Files.createDirectories(Colour.BLUE.dir(runDir()));
        Files.writeString(Colour.BLUE.statusFile(runDir()), """
                {"colour": "blue", "daemonUp": false, "ceilingsMib": {"0": 8192, "1": 2048}, "futureField": 1}
                """);
        node = SupervisorNode.start(config(Map.of(1, 4096L), Optional.of(FakeBinary.install(tmp.resolve("bin"))), Duration.ofSeconds(5)),
                new PrintStream(console, true, StandardCharsets.UTF_8));

        assertThat(readyStatus().ceilingsMib()).isEqualTo(Map.of(0, 8192L, 1, 4096L));
        assertThat(node.socket()).isEqualTo(Colour.BLUE.supervisorSocket(runDir()));

        node.close();
        assertThat(console()).contains("mpshare mps-control: MPS control daemon stopped (exit 0)");
        assertThat(node.socket()).doesNotExist();
    }

    @Test void close_clientsStayPastTheDrainWait_daemonLeftRunningWithoutReadyMarker() throws Exception {
        node = SupervisorNode.start(config(Map.of(), Optional.of(FakeBinary.install(tmp.resolve("bin"))), Duration.ZERO),
                new PrintStream(console, true, StandardCharsets.UTF_8));
        readyStatus();
        Path pipe = Colour.BLUE.pipeDir(runDir());
        Files.writeString(pipe.resolve("servers"), "461\n");
        Files.writeString(pipe.resolve("clients.461"), "1001\n");

        node.close();

        assertThat(console()).contains("shutting down without quitting the MPS control daemon: clients still connected, PIDs [1001]");
        assertThat(Colour.BLUE.readyMarker(runDir())).doesNotExist();
        assertThat(ProcessHandle.of(daemonPid).map(ProcessHandle::isAlive)).contains(true);
    }

    @Test void start_unreadableLastStatus_ignoredAndTheFlagsApply() throws Exception {
        Files.createDirectories(Colour.BLUE.dir(runDir()));
        Files.writeString(Colour.BLUE.statusFile(runDir()), "not json");
        node = SupervisorNode.start(config(Map.of(0, 4096L), Optional.of(FakeBinary.install(tmp.resolve("bin"))), Duration.ofSeconds(5)),
                new PrintStream(console, true, StandardCharsets.UTF_8));
        assertThat(readyStatus().ceilingsMib()).isEqualTo(Map.of(0, 4096L));
        node.close();
    }

    @Test void start_missingBinary_saysWhichPath() {
        Path missing = tmp.resolve("nope");
        assertThatThrownBy(() -> SupervisorNode.start(config(Map.of(), Optional.of(missing), Duration.ZERO), System.err))
                .isInstanceOf(MpsException.class).hasMessageContaining(missing + " is not an executable file");
    }

    @Test void start_sameColourTwice_refusedBeforeAnythingChanges_otherColourStarts() throws Exception {
        Path bin = FakeBinary.install(tmp.resolve("bin"));
        node = SupervisorNode.start(config(Map.of(), Optional.of(bin), Duration.ofSeconds(5)), new PrintStream(console, true, StandardCharsets.UTF_8));
        SupervisorStatus first = readyStatus();
        Path ready = Colour.BLUE.readyMarker(runDir());
        String marker = Files.readString(ready);

        assertThatThrownBy(() -> SupervisorNode.start(config(Map.of(), Optional.of(bin), Duration.ZERO), System.err))
                .isInstanceOf(AlreadyRunning.class)
                .hasMessageStartingWith("the blue MPS supervisor is running here: pid " + ProcessHandle.current().pid() + " (")
                .hasMessageContaining(" holds " + Colour.BLUE.lockFile(runDir()) + " and serves " + node.socket() + ". Stop it first: one supervisor per colour")
                .hasMessageEndingWith("Nothing was changed");
        assertThat(ready).hasContent(marker);   // a supervisor's first act would have deleted it
        assertThat(readyStatus().daemonPid()).isEqualTo(first.daemonPid());

        // blue/green: the other colour is the deliberate second daemon
        try (SupervisorNode green = SupervisorNode.start(config(Colour.GREEN, Map.of(), Optional.of(bin), Duration.ofSeconds(5)), System.err)) {
            assertThat(green.socket()).isEqualTo(Colour.GREEN.supervisorSocket(runDir())).exists();
        }
        node.close();
    }
}
