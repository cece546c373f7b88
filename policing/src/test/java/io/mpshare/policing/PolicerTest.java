package io.mpshare.policing;

import io.mpshare.core.codec.UsageCodec;
import io.mpshare.core.ledger.Allocation;
import io.mpshare.mps.MpsException;
import io.mpshare.mps.fake.FakeMpsControl;
import io.mpshare.nvml.Nvml;
import io.mpshare.nvml.fake.FakeNvml;
import io.mpshare.policing.Outcome.Result;
import io.mpshare.policing.PolicerEvent.Kind;
import io.mpshare.policing.metrics.PolicerMetrics;
import io.mpshare.policing.proc.CgroupPidOwners;
import io.mpshare.policing.proc.ProcFs;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The policer end to end over test doubles: {@link FakeNvml}, a fake /proc tree read by the real cgroup
 * owners, two {@link FakeMpsControl} daemons (blue/green), the supervisor's report of its daemon (PID 4000) and server
 * (PID 5000), recording killer, evictor and sinks, a clock the test moves.
 */
class PolicerTest {
    static final String UID_A = "aaaaaaaa-0000-4000-8000-00000000000a";
    static final String UID_B = "bbbbbbbb-0000-4000-8000-00000000000b";
    static final String UID_X = "cccccccc-0000-4000-8000-00000000000c"; // a pod with no allocation (privileged, NVIDIA_VISIBLE_DEVICES=all)
    static final String CID_A = "a".repeat(64), CID_A2 = "d".repeat(64), CID_B = "b".repeat(64), CID_X = "c".repeat(64);

    /** A: 2048 MiB request on GPU 0 → allowed 2688 MiB with one client. B: 4096 MiB on GPU 0, the neighbour. */
    static final Allocation A = Fixtures.pod("a").uid(UID_A).on(0).container("main", 2048, 30).build();
    static final Allocation B = Fixtures.pod("b").uid(UID_B).on(0).container("main", 4096, 50).build();

    @TempDir Path procRoot;
    FakeProc proc;
    final FakeNvml fake = new FakeNvml().addH200().addH200();
    Nvml nvml = fake;
    final FakeMpsControl blue = new FakeMpsControl();
    final FakeMpsControl green = new FakeMpsControl();
    final List<Long> killed = new ArrayList<>();
    boolean refuseKill;
    int killAttempts;
    final List<String> evicted = new ArrayList<>();
    Evictor.Result evictAnswer = Evictor.Result.EVICTED;
    final List<PolicerEvent> events = new CopyOnWriteArrayList<>();
    final List<Map<String, UsageCodec.PodUsage>> published = new ArrayList<>();
    final PrometheusRegistry registry = new PrometheusRegistry();
    PolicerMetrics.PodSeries podSeries = PolicerMetrics.PodSeries.INCLUDED;
    final MutableClock clock = new MutableClock(Instant.parse("2026-11-30T04:00:00Z"));
    List<Allocation> allocations = new ArrayList<>(List.of(A, B));
    static final long DAEMON = 4000, SERVER = 5000;
    /** What the supervisor said at its last health check, just before the test's first cycle. */
    final Instant reportedAt = clock.instant().minusSeconds(1);
    MpsServers servers = () -> List.of(new DaemonReport(reportedAt, DAEMON, Set.of(SERVER)));

    @BeforeEach
    void tree() {
        proc = new FakeProc(procRoot);
        proc.hostProcess(DAEMON, "nvidia-cuda-mps-control");
        proc.hostProcess(SERVER, "/usr/local/nvidia/bin/nvidia-cuda-mps-server", DAEMON, FakeProc.EARLY);
    }

    Policer policer(ActionPolicy policy) {
        Map<String, String> names = Map.of(CID_A, "main", CID_A2, "worker", CID_B, "main", CID_X, "cuda");
        return Policer.builder()
                .config(PolicerConfig.defaults("node-1").withPolicy(policy).withProcRoot(procRoot))
                .nvml(nvml)
                .view(() -> allocations)
                .owners(new CgroupPidOwners(new ProcFs(procRoot), (uid, id) -> Optional.ofNullable(names.get(id))))
                .servers(() -> servers.reports())
                .daemons(MpsDaemons.of(blue, green))
                .killer(pid -> { killAttempts++; return !refuseKill && killed.add(pid); })
                .evictor((uid, reason) -> { evicted.add(uid); return evictAnswer; })
                .events(events::add)
                .usage(published::add)
                .metrics(new PolicerMetrics(registry, "node-1", podSeries))
                .clock(clock)
                .build();
    }

    /** pid runs in pod A's main container as an MPS client of blue's server (PID 5000). */
    void clientOfA(long pid, long mib) { proc.podProcess(pid, UID_A, CID_A); fake.startMpsClient(0, pid, mib); blue.connectClient(pid); }

    void clientOfB(long pid, long mib) { proc.podProcess(pid, UID_B, CID_B); fake.startMpsClient(0, pid, mib); blue.connectClient(pid); }

    static List<String> terminations(FakeMpsControl d) {
        return d.commands().stream().filter(c -> c.startsWith("terminate_client")).toList();
    }

    List<Kind> eventKinds() { return events.stream().map(PolicerEvent::kind).toList(); }

    // --- the cases -------------------------------------------------------------------------

    @Test
    void overLimitSingleProcess_terminatedThroughItsServer_neighbourUntouched() {
        clientOfA(100, 5000);
        clientOfB(200, 4000);
        var r = policer(ActionPolicy.TERMINATE).runOnce();

        assertThat(terminations(blue)).containsExactly("terminate_client 5000 100");
        assertThat(killed).isEmpty();
        assertThat(r.outcomes("terminate")).singleElement().satisfies(o -> assertThat(o.result()).isEqualTo(Result.DONE));
        assertThat(eventKinds()).containsExactly(Kind.OVER_LIMIT, Kind.CLIENT_TERMINATED);
        assertThat(events.getFirst().pod()).contains(A.pod());
        assertThat(events.getFirst().message()).contains("5000 MiB", "2688 MiB", "pid 100");
    }

    @Test
    void fourProcessesOfOnePod_eachUnderTheCapButOverTogether_onlyTheFewestOffendersEnd() {
        // 4 × 1000 = 4000 MiB against A's 2560 MiB charge + 128 slack: the two newest end, 2000 MiB stay
        for (long pid = 101; pid <= 104; pid++) clientOfA(pid, 1000);
        clientOfB(200, 4000);
        policer(ActionPolicy.TERMINATE).runOnce();
        assertThat(terminations(blue)).containsExactly("terminate_client 5000 104", "terminate_client 5000 103");
    }

    @Test
    void envTamperedClient_raisedItsCap_isTerminated() {
        // A's client set CUDA_MPS_PINNED_DEVICE_MEM_LIMIT above its share; the server ceiling (B's 4608) let it through
        clientOfA(100, 4500);
        clientOfB(200, 100);
        policer(ActionPolicy.TERMINATE).runOnce();
        assertThat(terminations(blue)).containsExactly("terminate_client 5000 100");
    }

    @Test
    void rogueNonMpsProcess_isSigkilled_neighbourUntouched() {
        clientOfA(100, 1000);
        proc.podProcess(101, UID_A, CID_A2);
        fake.startProcess(0, 101, 9000);
        clientOfB(200, 4000);
        var r = policer(ActionPolicy.TERMINATE).runOnce();
        assertThat(killed).containsExactly(101L);
        assertThat(terminations(blue)).isEmpty();
        assertThat(r.findings()).singleElement().isInstanceOf(Finding.Rogue.class);
        assertThat(events.getFirst().container()).isEqualTo("worker");
        assertThat(eventKinds()).containsExactly(Kind.ROGUE_PROCESS, Kind.PROCESS_KILLED);
    }

    @Test
    void rogueNonMpsProcess_thatIsAClientOnASecondLook_isSparedThisCycle() {
        proc.podProcess(101, UID_A, CID_A2);
        fake.startProcess(0, 101, 1000);
        nvml = becomesClientAfterFirstRead(fake, 0, 101);
        var r = policer(ActionPolicy.TERMINATE).runOnce();
        assertThat(killed).isEmpty();
        assertThat(r.outcomes("kill")).singleElement().satisfies(o -> assertThat(o.result()).isEqualTo(Result.SKIPPED));
    }

    @Test
    void podWithNoAllocation_onASharedGpu_isRogue_andTerminated() {
        proc.podProcess(300, UID_X, CID_X);
        fake.startMpsClient(1, 300, 2000);
        green.connectClient(300);
        policer(ActionPolicy.TERMINATE).runOnce();
        assertThat(terminations(green)).containsExactly("terminate_client 5000 300");
        assertThat(terminations(blue)).isEmpty();
    }

    @Test
    void unknownHostProcess_isReportedOnce_andNeverActedOn() {
        proc.hostProcess(777, "/usr/bin/python3");
        fake.startProcess(0, 777, 900);
        Policer p = policer(ActionPolicy.TERMINATE);
        p.runOnce();
        clock.advance(Duration.ofSeconds(1));
        p.runOnce();
        assertThat(killed).isEmpty();
        assertThat(terminations(blue)).isEmpty();
        assertThat(eventKinds()).containsExactly(Kind.UNKNOWN_PROCESS);
        assertThat(events.getFirst().podUid()).isEmpty();
    }

    // --- who is the MPS server: what the supervisor reported and the kernel says, never a name ----------------

    static final String RENAMED = "/tmp/nvidia-cuda-mps-server\0-c\0import torch; x = torch.empty(130 << 30, device='cuda')\0";

    @Test
    void renamedProcess_inABookedPod_holding133000MiBOutsideMps_isKilled() {
        proc.podProcess(300, UID_A, CID_A, RENAMED, 1, FakeProc.EARLY);
        fake.startProcess(0, 300, 133_000);
        var r = policer(ActionPolicy.TERMINATE).runOnce();
        assertThat(r.findings()).singleElement().satisfies(f -> assertThat(f.reason()).isEqualTo("rogue_not_mps"));
        assertThat(killed).containsExactly(300L);
        assertThat(r.usage().get(UID_A).gpus().getFirst().usedMib()).isEqualTo(133_000);
    }

    @Test
    void renamedProcess_inAPodWithNoBooking_holding133000MiBOutsideMps_isKilled() {
        proc.podProcess(300, UID_X, CID_X, RENAMED, 1, FakeProc.EARLY);
        fake.startProcess(0, 300, 133_000);
        var r = policer(ActionPolicy.TERMINATE).runOnce();
        assertThat(r.findings()).singleElement().satisfies(f -> assertThat(f.reason()).isEqualTo("rogue_no_allocation"));
        assertThat(killed).containsExactly(300L);
    }

    @Test
    void reportedServer_isNeverJudged() {
        fake.startProcess(0, SERVER, 300);
        clientOfA(100, 1000);
        var r = policer(ActionPolicy.TERMINATE).runOnce();
        assertThat(r.findings()).isEmpty();
        assertThat(events).isEmpty();
        assertThat(r.snapshot().gpus().getFirst().processes()).filteredOn(p -> p.pid() == SERVER)
                .singleElement().satisfies(p -> assertThat(p.role()).isEqualTo(Snapshot.Role.MPS_SERVER));
        assertThat(r.usage().get(UID_A).gpus().getFirst().usedMib()).isEqualTo(1000);
    }

    @Test
    void reportedServer_inTheMpsControlPodsCgroup_isNeverJudged() {
        // in a cluster the daemon and its servers run in the mps-control pod: a pod with no allocation
        String mpsControlPod = "eeeeeeee-0000-4000-8000-00000000000e";
        proc.podProcess(DAEMON, mpsControlPod, "e".repeat(64), "nvidia-cuda-mps-control\0-f\0", 1, FakeProc.EARLY);
        proc.podProcess(SERVER, mpsControlPod, "e".repeat(64), "nvidia-cuda-mps-server\0", DAEMON, FakeProc.EARLY);
        fake.startProcess(0, SERVER, 300);
        clientOfA(100, 1000);
        assertThat(policer(ActionPolicy.TERMINATE).runOnce().findings()).isEmpty();
        assertThat(killed).isEmpty();
    }

    @Test
    void fakeServer_thatIsNotTheReportedPid_isJudged() {
        fake.startProcess(0, SERVER, 300);
        proc.podProcess(300, UID_A, CID_A, "python3\0", 1, FakeProc.EARLY);
        proc.podProcess(301, UID_A, CID_A, "/usr/local/nvidia/bin/nvidia-cuda-mps-server\0", 300, FakeProc.EARLY);
        fake.startProcess(0, 301, 20_480);
        var r = policer(ActionPolicy.TERMINATE).runOnce();
        assertThat(r.findings()).singleElement().satisfies(f -> assertThat(f.reason()).isEqualTo("rogue_not_mps"));
        assertThat(killed).containsExactly(301L);
    }

    @Test
    void hostProcessNamedLikeTheServer_notReported_isReportedAsUnknown() {
        proc.hostProcess(777, "nvidia-cuda-mps-server");
        fake.startProcess(0, 777, 20_480);
        var r = policer(ActionPolicy.TERMINATE).runOnce();
        assertThat(r.findings()).singleElement().isInstanceOf(Finding.Unknown.class);
        assertThat(killed).isEmpty();
    }

    @Test
    void newServer_childOfTheReportedDaemon_isRecognisedBeforeTheListNamesIt() {
        // a client of another UID made the daemon launch a second server after the supervisor's last health check
        proc.hostProcess(5001, "nvidia-cuda-mps-server", DAEMON, reportedAt.plusSeconds(3));
        fake.startProcess(0, 5001, 300);
        assertThat(policer(ActionPolicy.TERMINATE).runOnce().findings()).isEmpty();
    }

    @Test
    void staleReport_serverPidNowHeldByATenantProcess_isJudged() {
        // the reported server exited and a pod's process took its PID after the report was written
        proc.podProcess(SERVER, UID_A, CID_A, RENAMED, 1, reportedAt.plusSeconds(30));
        fake.startProcess(0, SERVER, 20_480);
        clock.advance(Duration.ofSeconds(31));
        var r = policer(ActionPolicy.TERMINATE).runOnce();
        assertThat(r.findings()).singleElement().satisfies(f -> assertThat(f.reason()).isEqualTo("rogue_not_mps"));
        assertThat(killed).containsExactly(SERVER);
    }

    @Test
    void staleReport_daemonPidNowHeldByATenantProcess_vouchesForNoChild() {
        proc.podProcess(DAEMON, UID_A, CID_A, "python3\0", 1, reportedAt.plusSeconds(30));
        proc.podProcess(302, UID_A, CID_A, RENAMED, DAEMON, reportedAt.plusSeconds(31));
        fake.startProcess(0, 302, 20_480);
        clock.advance(Duration.ofSeconds(32));
        policer(ActionPolicy.TERMINATE).runOnce();
        assertThat(killed).containsExactly(302L);
    }

    @Test
    void noReport_serverIsNotKnown_soANonClientIsJudged() {
        servers = List::of; // no supervisor on this node
        proc.podProcess(300, UID_A, CID_A, RENAMED, 1, FakeProc.EARLY);
        fake.startProcess(0, 300, 20_480);
        policer(ActionPolicy.TERMINATE).runOnce();
        assertThat(killed).containsExactly(300L);
    }

    @Test
    void reportThatCannotBeRead_judgesNothingThisCycle() {
        servers = () -> { throw new IllegalStateException("status.json of blue is not JSON"); };
        fake.startProcess(0, SERVER, 300);
        proc.podProcess(300, UID_A, CID_A, RENAMED, 1, FakeProc.EARLY);
        fake.startProcess(0, 300, 20_480);
        Policer p = policer(ActionPolicy.TERMINATE);
        assertThatThrownBy(p::runOnce).hasMessageContaining("not JSON");
        assertThat(killed).isEmpty();
        assertThat(events).isEmpty();
    }

    @Test
    void podDeletion_endsOnlyThatPodsClients_throughTheDaemon() {
        clientOfA(100, 1000);
        clientOfA(101, 1000);
        clientOfB(200, 1000);
        Policer p = policer(ActionPolicy.TERMINATE);
        assertThat(p.endPod(UID_A)).containsExactly(100L, 101L);
        assertThat(terminations(blue)).containsExactly("terminate_client 5000 100", "terminate_client 5000 101");
        assertThat(eventKinds()).containsExactly(Kind.POD_ENDED);
        assertThat(p.endPod("no-such-pod")).isEmpty();
    }

    // --- policies -----------------------------------------------------------------------------------

    @Test
    void eventPolicy_reportsButStopsNothing() {
        clientOfA(100, 5000);
        proc.podProcess(101, UID_A, CID_A2);
        fake.startProcess(0, 101, 500);
        var r = policer(ActionPolicy.EVENT).runOnce();
        assertThat(terminations(blue)).isEmpty();
        assertThat(killed).isEmpty();
        assertThat(evicted).isEmpty();
        assertThat(r.outcomes()).extracting(o -> o.action().kind()).containsOnly("event");
        assertThat(eventKinds()).containsExactlyInAnyOrder(Kind.OVER_LIMIT, Kind.ROGUE_PROCESS);
    }

    @Test
    void evictPolicy_evictsTheOffendingPodOnce_notItsNeighbour() {
        clientOfA(100, 5000);
        proc.podProcess(101, UID_A, CID_A2);
        fake.startProcess(0, 101, 500);
        clientOfB(200, 4000);
        Policer p = policer(ActionPolicy.EVICT);
        p.runOnce();
        clock.advance(Duration.ofSeconds(1));
        p.runOnce();
        assertThat(evicted).containsExactly(UID_A);
        assertThat(terminations(blue)).isEmpty();
        assertThat(killed).isEmpty();
    }

    @Test
    void evictPolicy_blockedByABudget_isRetriedAfterRetryAfter() {
        clientOfA(100, 5000);
        evictAnswer = Evictor.Result.BLOCKED;
        Policer p = policer(ActionPolicy.EVICT);
        p.runOnce();
        clock.advance(Duration.ofSeconds(29));
        p.runOnce();
        assertThat(evicted).hasSize(1);
        evictAnswer = Evictor.Result.EVICTED;
        clock.advance(Duration.ofSeconds(1));
        p.runOnce();
        assertThat(evicted).hasSize(2);
        assertThat(eventKinds()).contains(Kind.EVICTION_BLOCKED, Kind.POD_EVICTED);
    }

    // --- de-duplication, escalation, failures ---------------------------------------------------------

    @Test
    void sameOffenceOverSeveralCycles_isActedOnOnce_thenEscalatedToSigkill() {
        clientOfA(100, 5000);
        Policer p = policer(ActionPolicy.TERMINATE);
        for (int s = 0; s < 5; s++) { p.runOnce(); clock.advance(Duration.ofSeconds(1)); }
        assertThat(terminations(blue)).containsExactly("terminate_client 5000 100");
        assertThat(killed).isEmpty();
        var r = p.runOnce(); // 5 s after terminate_client, still on the GPU
        assertThat(killed).containsExactly(100L);
        assertThat(r.outcomes("kill")).singleElement().satisfies(o -> assertThat(o.result()).isEqualTo(Result.ESCALATED));
        clock.advance(Duration.ofSeconds(1));
        p.runOnce();
        assertThat(killed).containsExactly(100L);
        assertThat(eventKinds()).containsExactly(Kind.OVER_LIMIT, Kind.CLIENT_TERMINATED, Kind.PROCESS_KILLED);
    }

    @Test
    void escalatedSigkillThatIsRefused_isTriedAgainAfterRetryAfter() {
        clientOfA(100, 5000);
        refuseKill = true;
        Policer p = policer(ActionPolicy.TERMINATE);
        p.runOnce();
        clock.advance(Duration.ofSeconds(5));
        p.runOnce();
        assertThat(killAttempts).isEqualTo(1);
        clock.advance(Duration.ofSeconds(29));
        p.runOnce();
        assertThat(killAttempts).isEqualTo(1);
        refuseKill = false;
        clock.advance(Duration.ofSeconds(1));
        p.runOnce();
        assertThat(killAttempts).isEqualTo(2);
        assertThat(killed).containsExactly(100L);
    }

    @Test
    void offenceThatEnds_isForgotten_soANewOffenceIsActedOnAgain() {
        clientOfA(100, 5000);
        Policer p = policer(ActionPolicy.TERMINATE);
        p.runOnce();
        fake.stopProcess(0, 100);
        clock.advance(Duration.ofSeconds(1));
        p.runOnce();
        fake.startMpsClient(0, 100, 6000);
        blue.connectClient(100);
        clock.advance(Duration.ofSeconds(1));
        p.runOnce();
        assertThat(terminations(blue)).containsExactly("terminate_client 5000 100", "terminate_client 5000 100");
    }

    @Test
    void gpuThatCannotBeRead_isNotJudged_andDoesNotResetDeduplication() {
        clientOfA(100, 5000);
        Policer p = policer(ActionPolicy.TERMINATE);
        p.runOnce();
        fake.failNext("mpsClients", 999, "Unknown Error");
        clock.advance(Duration.ofSeconds(1));
        var r = p.runOnce();
        assertThat(r.findings()).isEmpty();
        clock.advance(Duration.ofSeconds(1));
        p.runOnce();
        assertThat(terminations(blue)).containsExactly("terminate_client 5000 100");
    }

    @Test
    void halfReadGpu_neverMakesClientsLookRogue() {
        clientOfA(100, 1000);
        clientOfB(200, 1000);
        fake.failNext("mpsClients", 999, "Unknown Error");
        var r = policer(ActionPolicy.TERMINATE).runOnce();
        assertThat(r.findings()).isEmpty();
        assertThat(killed).isEmpty();
        assertThat(r.snapshot().gpus().getFirst().sampled()).isFalse();
    }

    @Test
    void clientNoDaemonLists_fallsBackToSigkill() {
        proc.podProcess(100, UID_A, CID_A);
        fake.startMpsClient(0, 100, 5000); // no daemon lists it
        blue.connectClient(999);
        var r = policer(ActionPolicy.TERMINATE).runOnce();
        assertThat(killed).containsExactly(100L);
        assertThat(r.outcomes("terminate")).singleElement().satisfies(o -> assertThat(o.result()).isEqualTo(Result.FELL_BACK));
    }

    @Test
    void terminateThatFails_isReported_andRetriedAfterRetryAfter() {
        clientOfA(100, 5000);
        blue.failNext("terminate_client", MpsException.Reason.SERVER_NOT_FOUND);
        PolicerConfig base = PolicerConfig.defaults("node-1");
        Policer p = policer(ActionPolicy.TERMINATE);
        var r = p.runOnce();
        assertThat(r.outcomes("terminate")).singleElement().satisfies(o -> assertThat(o.result()).isEqualTo(Result.FAILED));
        assertThat(eventKinds()).contains(Kind.ACTION_FAILED);
        clock.advance(base.escalateAfter().minusSeconds(1));
        p.runOnce();
        assertThat(terminations(blue)).hasSize(1); // the failed attempt only: no retry before retryAfter
        clock.advance(Duration.ofSeconds(1));
        p.runOnce(); // escalation is due before the retry: SIGKILL
        assertThat(killed).containsExactly(100L);
    }

    // --- usage and metrics ----------------------------------------------------------------------------

    @Test
    void usage_isPublishedAtMostEveryUsageEvery_withEveryAllocatedPod() {
        clientOfA(100, 1000);
        Policer p = policer(ActionPolicy.TERMINATE);
        p.runOnce();
        for (int s = 0; s < 9; s++) { clock.advance(Duration.ofSeconds(1)); p.runOnce(); }
        assertThat(published).hasSize(1);
        clock.advance(Duration.ofSeconds(1));
        p.runOnce();
        assertThat(published).hasSize(2);
        var a = published.getLast().get(UID_A);
        assertThat(UsageCodec.encode(a)).isEqualTo("v1;at=2026-11-30T04:00:10Z;g=0:2560:1000:1;c=main@0:1000:1");
        assertThat(published.getLast()).containsKey(UID_B);
    }

    @Test
    void metrics_gpuPodContainerAndActions() {
        clientOfA(100, 5000);
        clientOfB(200, 1000);
        proc.hostProcess(777, "/usr/bin/python3");
        fake.startProcess(1, 777, 300);
        policer(ActionPolicy.TERMINATE).runOnce();

        var m = new Scrape(registry);
        double mib = 1024.0 * 1024.0;
        assertThat(m.value("mpshare_gpu_mps_clients", "gpu", "0")).isEqualTo(2);
        assertThat(m.value("mpshare_gpu_memory_total_bytes", "gpu", "0")).isEqualTo(143771 * mib);
        assertThat(m.value("mpshare_gpu_memory_used_bytes", "gpu", "0")).isEqualTo(6000 * mib);
        assertThat(m.value("mpshare_gpu_memory_allocated_bytes", "gpu", "0")).isEqualTo((2560 + 4608) * mib);
        assertThat(m.value("mpshare_gpu_healthy", "gpu", "1")).isEqualTo(1);
        assertThat(m.value("mpshare_gpu_unknown_processes", "gpu", "1")).isEqualTo(1);
        assertThat(m.value("mpshare_pod_gpu_memory_used_bytes", "pod", "a")).isEqualTo(5000 * mib);
        assertThat(m.value("mpshare_pod_gpu_memory_allocated_bytes", "pod", "b")).isEqualTo(4608 * mib);
        assertThat(m.value("mpshare_container_gpu_memory_allocated_bytes", "pod", "a")).isEqualTo(2560 * mib);
        assertThat(m.value("mpshare_container_gpu_memory_used_bytes", "pod", "a")).isEqualTo(5000 * mib);
        assertThat(m.value("mpshare_container_gpu_core_percent", "pod", "b")).isEqualTo(50);
        assertThat(m.value("mpshare_policer_actions", "action", "terminate")).isEqualTo(1);
        assertThat(m.value("mpshare_policer_actions", "action", "event")).isEqualTo(2);
        assertThat(m.value("mpshare_policer_findings", "finding", "over_limit")).isEqualTo(1);
        assertThat(m.value("mpshare_policer_findings", "finding", "unknown_process")).isEqualTo(1);
        assertThat(m.value("mpshare_policer_samples", "node", "node-1")).isEqualTo(1);
        assertThat(m.value("mpshare_policer_last_sample_timestamp_seconds", "node", "node-1"))
                .isEqualTo(Instant.parse("2026-11-30T04:00:00Z").getEpochSecond());
    }

    @Test
    void metrics_podThatLeft_disappearsFromTheNextScrape() {
        clientOfA(100, 1000);
        Policer p = policer(ActionPolicy.TERMINATE);
        p.runOnce();
        assertThat(new Scrape(registry).labelValues("mpshare_pod_gpu_memory_allocated_bytes", "pod")).containsExactlyInAnyOrder("a", "b");
        allocations = List.of(B);
        p.runOnce();
        assertThat(new Scrape(registry).labelValues("mpshare_pod_gpu_memory_allocated_bytes", "pod")).containsExactly("b");
    }

    @Test
    void metrics_podSeriesLeftOut_noSeriesNamesANamespacePodOrContainer() {
        podSeries = PolicerMetrics.PodSeries.LEFT_OUT;
        clientOfA(100, 5000);
        clientOfB(200, 1000);
        policer(ActionPolicy.TERMINATE).runOnce();
        var names = new ArrayList<String>();
        for (var snapshot : registry.scrape()) {
            for (var dp : snapshot.getDataPoints()) {
                assertThat(dp.getLabels().contains("namespace") || dp.getLabels().contains("pod") || dp.getLabels().contains("container"))
                        .as(snapshot.getMetadata().getName() + " " + dp.getLabels()).isFalse();
            }
            names.add(snapshot.getMetadata().getName());
        }
        assertThat(names).contains("mpshare_gpu_memory_used_bytes", "mpshare_gpu_memory_allocated_bytes", "mpshare_policer_actions")
                .doesNotContain("mpshare_pod_gpu_memory_used_bytes", "mpshare_container_gpu_memory_used_bytes");
        assertThat(new Scrape(registry).value("mpshare_gpu_memory_used_bytes", "gpu", "0")).isEqualTo(6000 * 1024.0 * 1024.0);
    }

    // --- scheduling -----------------------------------------------------------------------------------

    @Test
    void start_schedulesAtThePeriod_andACycleThatThrowsKeepsTheSchedule() {
        var executor = new CapturingExecutor();
        Policer p = Policer.builder().config(PolicerConfig.defaults("node-1").withPeriod(Duration.ofMillis(500)).withProcRoot(procRoot))
                .nvml(nvml).view(() -> { throw new IllegalStateException("informer not synced"); })
                .owners(pid -> Optional.empty()).servers(List::of).metrics(new PolicerMetrics(registry, "node-1"))
                .events(events::add).clock(clock).executor(executor).build();
        p.start();
        assertThat(executor.periodMillis).isEqualTo(500);
        executor.task.run(); // must not throw
        assertThat(new Scrape(registry).value("mpshare_policer_sample_errors", "node", "node-1")).isEqualTo(1);
        p.close();
        assertThat(executor.cancelled).isTrue();
        executor.shutdownNow();
    }

    /** NVML whose {@code mpsClients} lists {@code pid} as a client from the second read on (a client caught mid-start). */
    static Nvml becomesClientAfterFirstRead(FakeNvml fake, int gpu, long pid) {
        return new Nvml() {
            int reads;
            @Override public String driverVersion() { return fake.driverVersion(); }
            @Override public int deviceCount() { return fake.deviceCount(); }
            @Override public DeviceInfo device(int i) { return fake.device(i); }
            @Override public List<GpuProcess> computeProcesses(int i) { return fake.computeProcesses(i); }
            @Override public List<GpuProcess> mpsClients(int i) {
                if (i == gpu && ++reads == 2) { long mib = fake.computeProcesses(i).stream().filter(p -> p.pid() == pid).findFirst().orElseThrow().usedMib();
                    fake.stopProcess(i, pid); fake.startMpsClient(i, pid, mib); }
                return fake.mpsClients(i);
            }
            @Override public List<XidEvent> drainCriticalXids() { return fake.drainCriticalXids(); }
            @Override public void close() { fake.close(); }
        };
    }

    /** A clock the test moves. */
    static final class MutableClock implements InstantSource {
        private Instant now;
        MutableClock(Instant start) { now = start; }
        void advance(Duration d) { now = now.plus(d); }
        @Override public Instant instant() { return now; }
    }

    /** Captures the periodic task instead of running it. */
    static final class CapturingExecutor extends java.util.concurrent.ScheduledThreadPoolExecutor {
        Runnable task;
        long periodMillis;
        boolean cancelled;

        CapturingExecutor() { super(1); }

        @Override
        public java.util.concurrent.ScheduledFuture<?> scheduleAtFixedRate(Runnable command, long initialDelay, long period,
                                                                          java.util.concurrent.TimeUnit unit) {
            task = command;
            periodMillis = unit.toMillis(period);
            var f = super.schedule(() -> {}, 1, java.util.concurrent.TimeUnit.DAYS);
            return new java.util.concurrent.ScheduledFuture<Object>() {
                @Override public long getDelay(java.util.concurrent.TimeUnit u) { return f.getDelay(u); }
                @Override public int compareTo(java.util.concurrent.Delayed o) { return f.compareTo(o); }
                @Override public boolean cancel(boolean b) { cancelled = true; return f.cancel(b); }
                @Override public boolean isCancelled() { return f.isCancelled(); }
                @Override public boolean isDone() { return f.isDone(); }
                @Override public Object get() { return null; }
                @Override public Object get(long t, java.util.concurrent.TimeUnit u) { return null; }
            };
        }
    }

    /** Reads values out of the registry without an exposition format. */
    static final class Scrape {
        private final Map<String, io.prometheus.metrics.model.snapshots.MetricSnapshot> byName = new HashMap<>();

        Scrape(PrometheusRegistry r) {
            for (var s : r.scrape()) byName.put(s.getMetadata().getName(), s);
        }

        /** Sum over the data points whose {@code label} is {@code value}. */
        double value(String name, String label, String value) {
            var s = byName.get(name);
            assertThat(s).as(name).isNotNull();
            double sum = 0;
            int seen = 0;
            for (var dp : s.getDataPoints()) {
                if (!value.equals(dp.getLabels().get(label))) continue;
                seen++;
                if (dp instanceof io.prometheus.metrics.model.snapshots.GaugeSnapshot.GaugeDataPointSnapshot g) sum += g.getValue();
                if (dp instanceof io.prometheus.metrics.model.snapshots.CounterSnapshot.CounterDataPointSnapshot c) sum += c.getValue();
            }
            if (seen == 0) throw new AssertionError(name + " has no data point with " + label + "=" + value);
            return sum;
        }

        List<String> labelValues(String name, String label) {
            var s = byName.get(name);
            return s == null ? List.of() : s.getDataPoints().stream().map(dp -> dp.getLabels().get(label)).toList();
        }
    }
}
