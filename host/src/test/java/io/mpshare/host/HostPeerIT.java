package io.mpshare.host;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.mpshare.core.model.Gpu;
import io.mpshare.host.api.ApiHandler;
import io.mpshare.host.api.ApiServer;
import io.mpshare.host.api.HostClient;
import io.mpshare.host.state.ProcessTable;
import io.mpshare.host.state.StateStore;
import io.mpshare.policing.LiveNodeView;
import io.mpshare.policing.proc.ProcFs;
import io.mpshare.policing.proc.ProcessTreeOwners;
import io.mpshare.testing.Prerequisites;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Host mode checks the caller (issue 11 item 7): a real unix socket, the real {@code SO_PEERCRED}, and a client run as
 * another user ({@code setpriv --reuid=65534 --regid=65534 --clear-groups}). Needs root and setpriv (util-linux):
 * skipped with a message otherwise, failed under {@code CI=true}. The socket is opened to everyone here: who may connect is not the question.
 */
class HostPeerIT {
    static final ObjectMapper JSON = new ObjectMapper();
    static final int NOBODY = 65534;
    /** A client of the line protocol: sends args[1] (with $PID replaced by its own PID) to socket args[0], prints the answer. */
    static final String CLIENT = """
            import java.net.*; import java.nio.*; import java.nio.channels.*; import java.nio.charset.StandardCharsets;
            public class PeerClient {
                public static void main(String[] a) throws Exception {
                    try (SocketChannel ch = SocketChannel.open(StandardProtocolFamily.UNIX)) {
                        ch.connect(UnixDomainSocketAddress.of(a[0]));
                        String req = a[1].replace("$PID", Long.toString(ProcessHandle.current().pid())) + "\\n";
                        ch.write(ByteBuffer.wrap(req.getBytes(StandardCharsets.UTF_8)));
                        ByteBuffer b = ByteBuffer.allocate(65536);
                        while (ch.read(b) >= 0) { }
                        System.out.print(new String(b.array(), 0, b.position(), StandardCharsets.UTF_8));
                    }
                }
            }
            """;
    @TempDir Path dir;
    HostService service;
    ApiServer server;
    final List<Process> started = new ArrayList<>();

    static boolean root() {
        try { return ((Integer) Files.getAttribute(Path.of("/proc/self"), "unix:uid")) == 0; }
        catch (Exception e) { return false; }
    }

    static boolean onPath(String tool) {
        for (String d : System.getenv().getOrDefault("PATH", "/usr/bin:/bin").split(":")) if (Files.isExecutable(Path.of(d, tool))) return true;
        return false;
    }

    @BeforeEach void setUp() throws Exception {
        Prerequisites.require(root(), "HostPeerIT runs a client as another user, which needs root (CI runs as root)");
        Prerequisites.require(onPath("setpriv"), "HostPeerIT needs setpriv (util-linux) on PATH: apt-get install -y util-linux");
        Prerequisites.require(javaRunsAsNobody(), "HostPeerIT runs a client as UID 65534, which cannot run " + java()
                + " (a JDK under a private home?); use a JDK in /usr/lib/jvm");
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
        Files.writeString(dir.resolve("PeerClient.java"), CLIENT);
        HostIT.FakeGate gate = new HostIT.FakeGate();
        service = new HostService(List.of(new Gpu(0, "GPU-a", "NVIDIA H200", HostIT.H200, true)), 512, gate,
                new StateStore(dir.resolve("state.json")), ProcessTable.host(), new LiveNodeView(),
                new HostOwners(new ProcessTreeOwners(ProcFs.host()), ProcessTable.host(), true, InstantSource.system(), Duration.ofSeconds(10)),
                InstantSource.system());
        server = new ApiServer(dir.resolve("host.sock"), null, new ApiHandler(service, Optional::empty, List::of)).start();
        Files.setPosixFilePermissions(server.socket(), PosixFilePermissions.fromString("rw-rw-rw-"));
    }

    @AfterEach void tearDown() {
        if (server != null) server.close();
        started.forEach(Process::destroyForcibly);
    }

    static String java() { return ProcessHandle.current().info().command().orElse("java"); }

    static List<String> asNobody(String... cmd) {
        List<String> out = new ArrayList<>(List.of("setpriv", "--reuid=" + NOBODY, "--regid=" + NOBODY, "--clear-groups", "--"));
        out.addAll(List.of(cmd));
        return out;
    }

    private static Boolean javaRuns;

    /** Probed once per run: a JDK under a private home cannot be run by UID 65534. */
    static synchronized boolean javaRunsAsNobody() throws Exception {
        if (javaRuns == null) javaRuns = probeJava();
        return javaRuns;
    }

    private static boolean probeJava() throws Exception {
        Process p = new ProcessBuilder(asNobody(java(), "-XX:-UsePerfData", "-version")).directory(Path.of("/").toFile()).redirectErrorStream(true).start();
        p.getInputStream().readAllBytes();
        return p.waitFor(60, TimeUnit.SECONDS) && p.exitValue() == 0;
    }

    /** Sends {@code request} as UID/GID 65534 with no supplementary groups; the answer. */
    JsonNode asNobody(String request) throws Exception {
        Process p = new ProcessBuilder(asNobody(java(), "-XX:-UsePerfData", "-Xshare:auto", dir.resolve("PeerClient.java").toString(),
                server.socket().toString(), request))
                .directory(dir.toFile()).redirectErrorStream(true).start();
        started.add(p);
        assertThat(p.waitFor(120, TimeUnit.SECONDS)).as("the client as 65534 ended").isTrue();
        String out = new String(p.getInputStream().readAllBytes()).strip();
        assertThat(p.exitValue()).as("client output: " + out).isZero();
        return JSON.readTree(out);
    }

    long rootSleeper() throws Exception {
        Process p = new ProcessBuilder("sleep", "120").start();
        started.add(p);
        return p.pid();
    }

    static String forbiddenMessage(JsonNode answer) {
        assertThat(answer.path("ok").asBoolean()).as(answer.toString()).isFalse();
        assertThat(answer.path("code").asText()).isEqualTo("FORBIDDEN");
        return answer.path("message").asText();
    }

    @Test
    void otherUser_cannotReleaseOrRepointRootsJob() throws Exception {
        JsonNode granted = new HostClient(server.socket()).allocate(1024, 0, 1, rootSleeper(), "root", List.of("sleep"));
        String job = granted.path("job").asText();
        assertThat(service.job(job)).hasValueSatisfying(j -> assertThat(j.user()).isEqualTo("root"));

        assertThat(forbiddenMessage(asNobody("{\"op\":\"release\",\"job\":\"" + job + "\"}")))
                .contains("job " + job + " belongs to user root, not to nobody");
        assertThat(forbiddenMessage(asNobody("{\"op\":\"started\",\"job\":\"" + job + "\",\"pid\":$PID}")))
                .contains("belongs to user root");
        assertThat(service.job(job)).as("the job is untouched").isPresent();
        assertThat(new HostClient(server.socket()).release(job).path("released").asBoolean()).as("root may").isTrue();
    }

    @Test
    void otherUser_namesOnlyItsOwnProcesses_andOwnsWhatItBooks() throws Exception {
        long rootPid = rootSleeper();
        String wrong = forbiddenMessage(asNobody("{\"op\":\"allocate\",\"memMib\":1024,\"gpuCount\":1,\"pid\":" + rootPid + ",\"user\":\"root\"}"));
        assertThat(wrong).contains("process " + rootPid + " belongs to user root, not to nobody");
        assertThat(service.jobs()).isEmpty();

        // its own PID: booked in its own name, whatever the request claims
        JsonNode own = asNobody("{\"op\":\"allocate\",\"memMib\":1024,\"gpuCount\":1,\"pid\":$PID,\"user\":\"root\"}");
        assertThat(own.path("ok").asBoolean()).as(own.toString()).isTrue();
        String job = own.path("job").asText();
        assertThat(service.job(job)).hasValueSatisfying(j -> assertThat(j.user()).isEqualTo("nobody"));
        // its own job, but a root process as the command: refused
        assertThat(forbiddenMessage(asNobody("{\"op\":\"started\",\"job\":\"" + job + "\",\"pid\":" + rootPid + "}")))
                .contains("process " + rootPid + " belongs to user root");
        assertThat(asNobody("{\"op\":\"release\",\"job\":\"" + job + "\"}").path("released").asBoolean()).isTrue();
    }
}
