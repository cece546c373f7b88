package io.mpshare.mps;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The supervisor survives its own death: a supervisor JVM (SupervisorProcessMain, the fake control script as the
 * daemons, the real socket) starts a domain whose server has a client, is killed with SIGKILL, and a new supervisor JVM
 * adopts the domain's running daemon — same PID, SERVING, the client untouched — from {@code domain.json}.
 */
class SupervisorRestartIT {
    static final String ID = "t-restart0001a";
    @TempDir Path tmp;
    final List<Process> processes = new ArrayList<>();
    final List<Long> pids = new ArrayList<>();

    @AfterEach void tearDown() {
        processes.forEach(Process::destroyForcibly);
        pids.forEach(p -> ProcessHandle.of(p).ifPresent(ProcessHandle::destroyForcibly));
    }

    private Process supervisor(Path run, Path bin) throws IOException {
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        Process p = new ProcessBuilder(java.toString(), "-cp", System.getProperty("java.class.path"), SupervisorProcessMain.class.getName(),
                run.toString(), bin.toString()).redirectErrorStream(true).redirectOutput(tmp.resolve("supervisor-" + processes.size() + ".log").toFile()).start();
        processes.add(p);
        return p;
    }

    private long sleeper() throws IOException {
        Process p = new ProcessBuilder("sleep", "300").start();
        processes.add(p);
        return p.pid();
    }

    @Test void supervisorKilled_newOneAdoptsTheDomainsDaemon_clientUntouched() throws Exception {
        Path bin = FakeBinary.install(tmp.resolve("bin"));
        Path run = tmp.resolve("run");
        SupervisorStatusClient client = SupervisorStatusClient.forColourSocket(Colour.BLUE, run, Duration.ofSeconds(10));
        Process first = supervisor(run, bin);
        await().atMost(Duration.ofSeconds(60)).ignoreExceptions().until(() -> client.status().ready());
        pids.add(client.status().daemonPid()); // the node daemon outlives the JVM as well

        client.putDomain(ID, new DomainSpec("GPU-it-0", DomainKind.TENANT, 1000, 4096, 50));
        await().atMost(Duration.ofSeconds(30)).until(() -> client.domain(ID).orElseThrow().state() == DomainState.SERVING);
        DomainStatus before = client.domain(ID).orElseThrow();
        pids.add(before.daemonPid());
        long server = sleeper(), app = sleeper(); // a live MPS server and its client, as the fake daemon will report them
        Path pipe = Path.of(before.pipeDir());
        Files.writeString(pipe.resolve("servers"), server + "\n");
        Files.writeString(pipe.resolve("clients." + server), app + "\n");
        await().atMost(Duration.ofSeconds(30)).until(() -> client.domain(ID).orElseThrow().clients().contains(app));
        assertThat(Files.readString(pipe.resolve("daemon.env"))).contains("GPU-it-0"); // CUDA_VISIBLE_DEVICES=<its GPU>

        first.destroyForcibly().waitFor();

        assertThat(ProcessHandle.of(before.daemonPid()).map(ProcessHandle::isAlive)).contains(true);
        assertThat(ProcessHandle.of(app).map(ProcessHandle::isAlive)).contains(true);
        Process second = supervisor(run, bin);
        await().atMost(Duration.ofSeconds(60)).ignoreExceptions().until(() -> client.domain(ID).orElseThrow().clients().contains(app));
        DomainStatus after = client.domain(ID).orElseThrow();
        assertThat(after.state()).isEqualTo(DomainState.SERVING);
        assertThat(after.daemonPid()).isEqualTo(before.daemonPid());
        assertThat(ProcessHandle.of(app).map(ProcessHandle::isAlive)).contains(true);
        assertThat(Files.readString(DomainPaths.of(Colour.BLUE, run, ID).record())).contains("\"daemonPid\":" + before.daemonPid());
        assertThat(second.isAlive()).isTrue();
    }
}
