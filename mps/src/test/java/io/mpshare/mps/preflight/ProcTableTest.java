package io.mpshare.mps.preflight;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/** {@link ProcTable} over a folder laid out as /proc: net/unix, net/tcp(6), PID/fd links, PID/cwd, PID/cmdline. */
class ProcTableTest {
    @TempDir Path tmp;
    Path proc;
    Path work;

    @BeforeEach void layout() throws IOException {
        proc = Files.createDirectories(tmp.resolve("proc"));
        work = Files.createDirectories(tmp.resolve("work"));
        Files.createDirectories(proc.resolve("net"));
        Files.writeString(proc.resolve("net/unix"), """
                Num       RefCount Protocol Flags    Type St Inode Path
                0000000000000000: 00000002 00000000 00010000 0001 01 5001 dp/mpshare-gpu-mem.sock
                0000000000000000: 00000003 00000000 00000000 0001 03 5002 dp/mpshare-gpu-mem.sock
                0000000000000000: 00000002 00000000 00010000 0001 01 5003 /elsewhere/mpshare-gpu-mem.sock
                """);
        // 39996 = 0x9C3C: one listener on 0.0.0.0 (v4), one established connection from it (not a listener)
        Files.writeString(proc.resolve("net/tcp"), """
                  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
                   0: 00000000:9C3C 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 6001 1 0 100 0 0 10 0
                   1: 0100007F:9C3C 0100007F:D431 01 00000000:00000000 00:00000000 00000000  1000        0 6002 1 0 100 0 0 10 0
                """);
        Files.writeString(proc.resolve("net/tcp6"), """
                  sl  local_address                         remote_address                        st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
                   0: 00000000000000000000000000000000:1F90 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 7001 1 0 100 0 0 10 0
                """);
        process(100, work, "java\0-jar\0/x/cli/target/mpshare.jar\0device-plugin\0", "socket:[5002]", "socket:[5001]", "socket:[6001]");
        process(200, Path.of("/"), "/usr/bin/python3\0-m\0http.server\08080\0", "socket:[7001]", "/dev/null");
        process(300, Path.of("/"), "other\0", "socket:[5003]");
        Files.createDirectories(work.resolve("dp"));
        Files.createFile(work.resolve("dp/mpshare-gpu-mem.sock"));
    }

    private void process(long pid, Path cwd, String cmdline, String... fds) throws IOException {
        Path dir = Files.createDirectories(proc.resolve(Long.toString(pid)).resolve("fd"));
        for (int i = 0; i < fds.length; i++) Files.createSymbolicLink(dir.resolve(Integer.toString(i + 3)), Path.of(fds[i]));
        Files.createSymbolicLink(proc.resolve(pid + "/cwd"), cwd);
        Files.writeString(proc.resolve(pid + "/cmdline"), cmdline);
    }

    @Test void unixListener_relativePath_resolvedAgainstTheHoldersCwd() {
        assertThat(new ProcTable(proc).unixListener(work.resolve("dp/mpshare-gpu-mem.sock")))
                .contains(new Holder(100, "mpshare device-plugin"));
    }

    @Test void unixListener_sameNameElsewhere_isNotIt() {
        assertThat(new ProcTable(proc).unixListener(tmp.resolve("other/mpshare-gpu-mem.sock"))).isEmpty();
    }

    @Test void tcpListener_v4AndV6_listenersOnly() {
        ProcTable t = new ProcTable(proc);
        assertThat(t.tcpListener(39996)).contains(new Holder(100, "mpshare device-plugin"));
        assertThat(t.tcpListener(8080)).contains(new Holder(200, "python3 -m http.server 8080"));
        assertThat(t.tcpListener(54321)).isEmpty();   // 0xD431 is only a connection's remote port
    }

    @Test void unreadableProc_seesNothing() {
        ProcTable none = new ProcTable(tmp.resolve("no-proc"));
        assertThat(none.tcpListener(39996)).isEmpty();
        assertThat(none.unixListener(work.resolve("dp/mpshare-gpu-mem.sock"))).isEmpty();
        assertThat(none.process(100)).isEmpty();
    }

    @Test void process_existing_withItsCommand() {
        assertThat(new ProcTable(proc).process(200)).contains(new Holder(200, "python3 -m http.server 8080"));
        assertThat(new ProcTable(proc).process(999)).isEmpty();
    }
}
