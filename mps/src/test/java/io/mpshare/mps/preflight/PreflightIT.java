package io.mpshare.mps.preflight;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** {@link Preflight} against real unix sockets and TCP ports of this process, read back through the real /proc. */
class PreflightIT {
    @TempDir Path tmp;
    static final long ME = ProcessHandle.current().pid();

    private Preflight preflight(List<Path> sockets, List<Preflight.Port> ports) {
        return new Preflight("another agent", "Stop it first", tmp.resolve(".lock/agent.lock"), sockets, ports, ProcTable.host());
    }

    private static ServerSocketChannel listen(Path socket) throws IOException {
        ServerSocketChannel ch = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
        ch.bind(UnixDomainSocketAddress.of(socket));
        return ch;
    }

    @Test void liveSocketAndLock_refused_namingThisProcess_andTheLockIsKept() throws Exception {
        Path sock = tmp.resolve("agent.sock");
        try (InstanceLock first = preflight(List.of(sock), List.of()).claim(); ServerSocketChannel live = listen(sock)) {
            assertThatThrownBy(() -> preflight(List.of(sock), List.of()).claim())
                    .isInstanceOf(AlreadyRunning.class)
                    .hasMessageStartingWith("another agent is running here: pid " + ME + " (")
                    .hasMessageContaining("holds " + tmp.resolve(".lock/agent.lock") + " and serves " + sock)
                    .hasMessageEndingWith(". Stop it first. Nothing was changed");
            assertThat(preflight(List.of(), List.of()).lock()).exists();
            assertThatThrownBy(() -> preflight(List.of(), List.of()).check()).isInstanceOf(AlreadyRunning.class);   // still held
        }
        preflight(List.of(sock), List.of()).claim().close();   // the first one gone: free again
    }

    @Test void socketLeftByACrash_isNotAnAgent() throws Exception {
        Path sock = tmp.resolve("agent.sock");
        listen(sock).close();   // the file stays, nothing accepts on it
        assertThat(sock).exists();
        try (InstanceLock lock = preflight(List.of(sock), List.of()).claim()) {
            assertThat(lock.file()).exists();
        }
    }

    @Test void liveSocketWithoutTheLock_refused() throws Exception {
        Path sock = tmp.resolve("agent.sock");
        try (ServerSocketChannel live = listen(sock)) {
            assertThatThrownBy(() -> preflight(List.of(sock), List.of()).check())
                    .hasMessageStartingWith("another agent is running here: pid " + ME)
                    .hasMessageContaining("serves " + sock);
        }
    }

    @Test void portInUseAlone_namesPortFlagAndHolder() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            int port = taken.getLocalPort();
            var p = new Preflight.Port(new InetSocketAddress(port), "--metrics-port");
            assertThatThrownBy(() -> preflight(List.of(), List.of(p)).check())
                    .isInstanceOf(AlreadyRunning.class)
                    .hasMessageStartingWith("port " + port + " (--metrics-port) is in use: pid " + ME + " (")
                    .hasMessageEndingWith(" listens on port " + port + " (--metrics-port). Stop that process, or choose another port with --metrics-port. Nothing was changed");
            assertThat(preflight(List.of(), List.of()).lock()).as("a check creates nothing").doesNotExist();
        }
    }

    @Test void nothingInUse_claimHoldsTheLock_checkDoesNot() throws Exception {
        var free = new Preflight.Port(new InetSocketAddress(freePort()), "--metrics-port");
        preflight(List.of(tmp.resolve("none.sock")), List.of(free)).check();
        assertThat(tmp.resolve(".lock")).as("a check creates nothing").doesNotExist();
        try (InstanceLock held = preflight(List.of(), List.of(free)).claim()) {
            assertThat(Files.readString(held.file()).strip()).isEqualTo(Long.toString(ME));
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }
}
