package io.mpshare.host;

import io.mpshare.core.ledger.Allocation;
import io.mpshare.core.ledger.Phase;
import io.mpshare.core.model.ContainerShare;
import io.mpshare.core.model.GpuDemand;
import io.mpshare.core.model.PodKey;
import io.mpshare.host.state.ProcessTable;
import io.mpshare.mps.SupervisorStatus;
import io.mpshare.mps.fake.FakeMpsControl;
import io.mpshare.nvml.fake.FakeNvml;
import io.mpshare.policing.ActionPolicy;
import io.mpshare.policing.CycleReport;
import io.mpshare.policing.Finding;
import io.mpshare.policing.LiveNodeView;
import io.mpshare.policing.MpsDaemons;
import io.mpshare.policing.Policer;
import io.mpshare.policing.PolicerConfig;
import io.mpshare.policing.proc.ProcFs;
import io.mpshare.policing.proc.ProcessTreeOwners;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Host mode's policer as {@code mpshare host} wires it ({@link HostOwners} policing unmanaged processes,
 * {@link HostMpsServers} over the supervisor's status and the pipe's daemon), over {@link FakeNvml}, a fake {@code /proc}
 * and a {@link FakeMpsControl}: a process is the MPS server by PID, never by the name it gives itself.
 */
class HostPolicingTest {
    static final Instant BOOT = Instant.parse("2026-11-30T00:00:00Z");
    static final Instant NOW = Instant.parse("2026-11-30T04:00:00Z");
    static final long DAEMON = 4000, SERVER = 5000;
    static final String RENAMED = "/tmp/nvidia-cuda-mps-server\0-c\0import torch\0";

    @TempDir Path proc;
    final FakeNvml nvml = new FakeNvml().addH200();
    final FakeMpsControl pipe = new FakeMpsControl();
    final LiveNodeView view = new LiveNodeView();
    final List<Long> killed = new ArrayList<>();
    SupervisorStatus status = status(DAEMON, List.of(SERVER));

    @BeforeEach void tree() throws IOException {
        Files.writeString(proc.resolve("stat"), "cpu  1 2 3 4\nbtime " + BOOT.getEpochSecond() + "\n");
        process(1, 0, "/sbin/init\0");
        process(DAEMON, 1, "nvidia-cuda-mps-control\0-f\0");
        process(SERVER, DAEMON, "nvidia-cuda-mps-server\0");
        nvml.startProcess(0, SERVER, 300);
    }

    static SupervisorStatus status(long daemonPid, List<Long> servers) {
        return new SupervisorStatus("blue", daemonPid > 0, daemonPid > 0, daemonPid > 0 ? "UP" : "STOPPED", daemonPid, "/run/mpshare/blue/pipe",
                "/run/mpshare/blue/log", 0, null, null, null, null, Map.of(), List.of(),
                servers.stream().map(p -> new SupervisorStatus.Server(p, List.of())).toList(), NOW.minusSeconds(2).toString(),
                List.of(), List.of());
    }

    /** A process as the kernel describes it: parent, state and start time in {@code stat}; the command line is its own. */
    void process(long pid, long ppid, String cmdline) throws IOException {
        Path dir = Files.createDirectories(proc.resolve(Long.toString(pid)));
        long ticks = Duration.between(BOOT, NOW.minusSeconds(600)).toMillis() / 10;
        Files.writeString(dir.resolve("cmdline"), cmdline);
        Files.writeString(dir.resolve("stat"), pid + " (x) S " + ppid + " " + pid + " " + pid + " 0 -1 4194560 1 0 0 0 5 2 0 0 20 0 1 0 " + ticks + " 1 1\n");
    }

    CycleReport cycle(HostOwners owners) {
        Policer p = Policer.builder()
                .config(PolicerConfig.defaults(HostService.NODE).withPolicy(ActionPolicy.TERMINATE).withProcRoot(proc))
                .nvml(nvml).view(view).owners(owners)
                .servers(new HostMpsServers(() -> status, pipe, () -> NOW))
                .daemons(MpsDaemons.of(pipe))
                .killer(killed::add)
                .clock(() -> NOW)
                .build();
        return p.runOnce();
    }

    HostOwners owners() {
        ProcessTable table = ProcessTable.proc(proc);
        return new HostOwners(new ProcessTreeOwners(new ProcFs(proc)), table, true, InstantSource.fixed(NOW), Duration.ofSeconds(10));
    }

    @Test
    void renamedUnmanagedProcess_holding133000MiBOutsideMps_isKilled() throws IOException {
        process(300, 1, RENAMED);
        nvml.startProcess(0, 300, 133_000);
        CycleReport r = cycle(owners());
        assertThat(r.findings()).singleElement().satisfies(f -> {
            assertThat(f.reason()).isEqualTo("rogue_no_allocation");
            assertThat(((Finding.Rogue) f).podUid()).isEqualTo(HostOwners.UNMANAGED);
        });
        assertThat(killed).containsExactly(300L);
    }

    @Test
    void renamedProcessInsideAJob_outsideMps_isKilled() throws IOException {
        view.put(job("job-1", 0, 2048));
        process(200, 1, "python3\0train.py\0");
        process(201, 200, RENAMED);
        nvml.startProcess(0, 201, 20_480);
        HostOwners owners = owners();
        owners.register(200, "job-1");
        CycleReport r = cycle(owners);
        assertThat(r.findings()).singleElement().satisfies(f -> assertThat(f.reason()).isEqualTo("rogue_not_mps"));
        assertThat(killed).containsExactly(201L);
    }

    @Test
    void supervisorsServer_isNeverJudged() {
        assertThat(cycle(owners()).findings()).isEmpty();
        assertThat(killed).isEmpty();
    }

    @Test
    void newServerOfTheSupervisorsDaemon_notYetListed_isNeverJudged() {
        status = status(DAEMON, List.of());
        assertThat(cycle(owners()).findings()).isEmpty();
        assertThat(killed).isEmpty();
    }

    @Test
    void serverOfADaemonLeftByAnEarlierRun_isNeverJudged() {
        // the restarted host runs no daemon of its own; the old one still serves a job's client on the pipe
        status = status(-1, List.of());
        assertThat(pipe.connectClient(700)).isEqualTo(SERVER);
        assertThat(cycle(owners()).findings()).isEmpty();
        assertThat(killed).isEmpty();
    }

    @Test
    void noDaemonAnywhere_noServerIsVouchedFor() {
        status = status(-1, List.of());
        pipe.crash();
        assertThat(new HostMpsServers(() -> status, pipe, () -> NOW).reports()).singleElement()
                .satisfies(r -> assertThat(r.serverPids()).isEmpty());
    }

    static Allocation job(String id, int gpu, long mib) {
        var share = new ContainerShare("main", false, mib, 0);
        var demand = new GpuDemand(1, mib + 512, 0, 512, mib, List.of(share), OptionalLong.empty());
        return new Allocation(PodKey.of("host", id), id, HostService.NODE, List.of(gpu), List.of("GPU-" + gpu), demand, Instant.EPOCH, Phase.ASSIGNED);
    }
}
