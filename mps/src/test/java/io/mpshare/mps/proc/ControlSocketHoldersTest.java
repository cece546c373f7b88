package io.mpshare.mps.proc;

import io.mpshare.mps.DomainStatus.Holder;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.LongStream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Holders of a daemon's {@code control} socket, found in fake {@code /proc} trees shaped as the kernel writes them: the
 * daemon (PID 100) listens on {@code control} (seqpacket) and accepted connections; a tenant process (UID 65534) holds
 * 130 of them from its pod's own network namespace, an MPS client holds one.
 */
class ControlSocketHoldersTest {
    static final Path SOCKET = Path.of("/run/mpshare/blue/d/t-1/pipe/control");
    static final int SEQPACKET = 5, STREAM = 1, LISTENING = 0x10000;
    @TempDir Path root;
    FakeProc proc;

    @BeforeEach void setUp() {
        proc = new FakeProc(root).process(100, 'S', 1, 0, "nvidia-cuda-mps-control -f", 1)
                .process(150, 'S', 100, 1000, "nvidia-cuda-mps-server", 1);
    }

    private List<String> daemonTable(int accepted) {
        List<String> t = new ArrayList<>();
        t.add(FakeProc.line(LISTENING, SEQPACKET, 1, 500, SOCKET.toString()));
        for (int i = 0; i < accepted; i++) t.add(FakeProc.line(0, SEQPACKET, 3, 600 + i, SOCKET.toString()));
        t.add(FakeProc.line(0, SEQPACKET, 3, 900, "")); // the server's own connection to the daemon
        t.add(FakeProc.line(0, STREAM, 3, 901, ""));    // some stream socket of a host process
        t.add(FakeProc.line(0, SEQPACKET, 3, 902, ""));
        return t;
    }

    private ControlSocketHolders holders() { return new ControlSocketHolders(root, new ProcProcesses(root)); }

    @Test void find_tenantHolding130_first_clientWithOneNext_serverExcluded() {
        proc.netUnix(100, daemonTable(131)).sockets(100, 500, 600, 601).sockets(150, 900)
                .process(300, 'S', 1, 1000, "python3 train.py", 1).sockets(300, 902, 901).netUnix(300, daemonTable(131))
                .process(400, 'S', 1, 65534, "python3 /tmp/hold.py 130", 7)
                .sockets(400, LongStream.range(2000, 2130).toArray())
                .netUnix(400, FakeProc.connected(SEQPACKET, 2000, 130));

        List<Holder> found = holders().find(SOCKET, 100, Set.of(150L));

        assertThat(found).containsExactly(new Holder(400, 65534, 130, "python3 /tmp/hold.py 130"), new Holder(300, 1000, 1, "python3 train.py"));
    }

    @Test void find_streamAndNamedSocketsAreNotConnectionsToTheControlSocket() {
        proc.netUnix(100, daemonTable(2)).sockets(100, 500)
                .process(300, 'S', 1, 1000, "dbus-daemon", 1).sockets(300, 901, 500).netUnix(300, daemonTable(2));
        assertThat(holders().find(SOCKET, 100, Set.of(150L))).isEmpty();
    }

    @Test void find_noListenerAtThatPath_orNothingAccepted_empty() {
        proc.netUnix(100, daemonTable(0)).process(400, 'S', 1, 65534, "hold", 1).sockets(400, 902).netUnix(400, daemonTable(0));
        assertThat(holders().find(SOCKET, 100, Set.of())).isEmpty(); // listening, nothing accepted: nobody holds it
        assertThat(holders().find(Path.of("/elsewhere/control"), 100, Set.of())).isEmpty();
        assertThat(holders().find(SOCKET, 999, Set.of())).isEmpty(); // daemon gone
    }

    @Test void find_processGoneWhileRead_skipped() {
        proc.netUnix(100, daemonTable(1)).process(400, 'S', 1, 65534, "hold", 9).sockets(400, 2000); // no net/unix: gone mid-scan
        assertThat(holders().find(SOCKET, 100, Set.of())).isEmpty();
    }

    @Test void find_atMostTenHolders_mostConnectionsFirst() {
        proc.netUnix(100, daemonTable(60));
        List<String> table = new ArrayList<>();
        for (int p = 0; p < 12; p++) {
            long[] inodes = LongStream.range(3000 + p * 10L, 3000 + p * 10L + 1 + p % 5).toArray();
            proc.process(1000 + p, 'S', 1, 2000 + p, "c" + p, 3).sockets(1000 + p, inodes);
            for (long i : inodes) table.add(FakeProc.line(0, SEQPACKET, 3, i, ""));
        }
        for (int p = 0; p < 12; p++) proc.netUnix(1000 + p, table);
        List<Holder> found = holders().find(SOCKET, 100, Set.of());
        assertThat(found).hasSize(10);
        assertThat(found.getFirst().connections()).isEqualTo(5);
        assertThat(found).extracting(Holder::connections).isSortedAccordingTo((a, b) -> b - a);
    }
}
