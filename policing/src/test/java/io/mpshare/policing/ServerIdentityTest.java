package io.mpshare.policing;

import io.mpshare.mps.DomainKind;
import io.mpshare.mps.DomainState;
import io.mpshare.mps.DomainStatus;
import io.mpshare.mps.SupervisorStatus;
import io.mpshare.policing.proc.ProcFs;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/** The MPS server by PID: listed in a fresh-enough report, or launched by a reported daemon; never by name. */
class ServerIdentityTest {
    static final Instant REPORTED = FakeProc.BOOT.plusSeconds(7200);

    @TempDir Path root;

    ServerIdentity.Recognised recognise(FakeProc proc, DaemonReport... reports) {
        return new ServerIdentity(new ProcFs(proc.root)).recognise(List.of(reports));
    }

    @Test
    void listedServer_startedBeforeTheReport_isAServer() {
        var proc = new FakeProc(root).hostProcess(5000, "anything", 1, REPORTED.minusSeconds(60));
        var known = recognise(proc, new DaemonReport(REPORTED, -1, Set.of(5000L)));
        assertThat(known.isServer(5000)).isTrue();
        assertThat(known.servers()).containsExactly(5000L);
    }

    @Test
    void listedServer_pidTakenAfterTheReport_isNot() {
        var proc = new FakeProc(root).hostProcess(5000, "nvidia-cuda-mps-server", 1, REPORTED.plusSeconds(3));
        assertThat(recognise(proc, new DaemonReport(REPORTED, -1, Set.of(5000L))).isServer(5000)).isFalse();
    }

    @Test
    void startedTheInstantOfTheReport_counts_aTickLaterDoesNot() {
        var proc = new FakeProc(root).hostProcess(5000, "s", 1, REPORTED).hostProcess(5001, "s", 1, REPORTED.plusMillis(10));
        var known = recognise(proc, new DaemonReport(REPORTED, -1, Set.of(5000L, 5001L)));
        assertThat(known.servers()).containsExactly(5000L);
    }

    @Test
    void childOfAReportedDaemon_isAServer_evenStartedAfterTheReport() {
        var proc = new FakeProc(root)
                .hostProcess(4000, "nvidia-cuda-mps-control", 1, REPORTED.minusSeconds(600))
                .hostProcess(5001, "s", 4000, REPORTED.plusSeconds(4));
        var known = recognise(proc, new DaemonReport(REPORTED, 4000, Set.of()));
        assertThat(known.isServer(5001)).isTrue();
        assertThat(known.daemons()).containsExactly(4000L);
    }

    @Test
    void childOfAnotherProcess_namedLikeTheServer_isNot() {
        var proc = new FakeProc(root)
                .hostProcess(4000, "nvidia-cuda-mps-control", 1, REPORTED.minusSeconds(600))
                .hostProcess(4100, "nvidia-cuda-mps-control", 1, REPORTED.minusSeconds(600))  // a tenant's own daemon
                .hostProcess(5002, "/tmp/nvidia-cuda-mps-server", 4100, REPORTED.minusSeconds(10));
        assertThat(recognise(proc, new DaemonReport(REPORTED, 4000, Set.of())).isServer(5002)).isFalse();
    }

    @Test
    void daemonPidTakenAfterTheReport_vouchesForNoChild() {
        var proc = new FakeProc(root)
                .hostProcess(4000, "python3", 1, REPORTED.plusSeconds(20))
                .hostProcess(5003, "python3", 4000, REPORTED.plusSeconds(21));
        var known = recognise(proc, new DaemonReport(REPORTED, 4000, Set.of()));
        assertThat(known.daemons()).isEmpty();
        assertThat(known.isServer(5003)).isFalse();
    }

    @Test
    void goneProcessesAndNoDaemon_vouchForNothing() {
        var proc = new FakeProc(root).hostProcess(6000, "s", 1, REPORTED.minusSeconds(5));
        var known = recognise(proc, new DaemonReport(REPORTED, -1, Set.of(5999L)), new DaemonReport(REPORTED, 4999, Set.of()));
        assertThat(known.servers()).isEmpty();
        assertThat(known.daemons()).isEmpty();
        assertThat(known.isServer(6000)).isFalse();
    }

    @Test
    void everyReportCounts_bothColours() {
        var proc = new FakeProc(root)
                .hostProcess(5000, "s", 1, REPORTED.minusSeconds(5))
                .hostProcess(6000, "s", 1, REPORTED.minusSeconds(5));
        var known = recognise(proc, new DaemonReport(REPORTED, -1, Set.of(5000L)), new DaemonReport(REPORTED, -1, Set.of(6000L)));
        assertThat(known.isServer(5000)).isTrue();
        assertThat(known.isServer(6000)).isTrue();
    }

    @Test
    void reportOfAStatus_takesDaemonServersAndTime_orNothingWithoutATime() {
        var status = new SupervisorStatus("blue", true, true, "UP", 620, "/p", "/l", 0, null, null, null, null, Map.of(), List.of(),
                List.of(new SupervisorStatus.Server(835, List.of(794L)), new SupervisorStatus.Server(836, List.of())), REPORTED.toString(),
                List.of(), List.of());
        assertThat(DaemonReport.of(status)).containsExactly(new DaemonReport(REPORTED, 620, Set.of(835L, 836L)));
        var noTime = new SupervisorStatus("blue", true, true, "UP", 620, "/p", "/l", 0, null, null, null, null, Map.of(), List.of(),
                List.of(new SupervisorStatus.Server(835, List.of())), "yesterday", List.of(), List.of());
        assertThat(DaemonReport.of(noTime)).isEmpty();
    }

    @Test
    void reportOfAStatusWithFaultDomains_namesEachDomainsDaemon_soItsNewServerIsKnownBeforeTheNextRead() {
        var domain = new DomainStatus("t-0a0a0a0a0a0a", "GPU-0", DomainKind.TENANT, 1000, "/run/mpshare/blue/d/t-0a0a0a0a0a0a/pipe",
                DomainState.SERVING, REPORTED.toString(), 4100, List.of(5100L), List.of(5200L), 8192, 50, 0, null, List.of(), null);
        var status = new SupervisorStatus("blue", true, true, "UP", 620, "/p", "/l", 0, null, null, null, null, Map.of(), List.of(),
                List.of(new SupervisorStatus.Server(835, List.of()), new SupervisorStatus.Server(5100, List.of(5200L))), REPORTED.toString(),
                List.of(), List.of(domain));
        List<DaemonReport> reports = DaemonReport.of(status);
        assertThat(reports).contains(new DaemonReport(REPORTED, 4100, Set.of(5100L)));

        var proc = new FakeProc(root)
                .hostProcess(4100, "nvidia-cuda-mps-control", 1, REPORTED.minusSeconds(600))
                .hostProcess(5101, "s", 4100, REPORTED.plusSeconds(2)); // the domain's second server, after the read
        var known = new ServerIdentity(new ProcFs(proc.root)).recognise(reports);
        assertThat(known.isServer(5101)).isTrue();
        assertThat(known.daemons()).contains(4100L);
    }
}
