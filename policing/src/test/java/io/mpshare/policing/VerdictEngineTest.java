package io.mpshare.policing;

import io.mpshare.core.codec.UsageCodec.ContainerUsage;
import io.mpshare.core.codec.UsageCodec.GpuUsage;
import io.mpshare.core.ledger.Allocation;
import io.mpshare.policing.Finding.OverLimit;
import io.mpshare.policing.Finding.Rogue;
import io.mpshare.policing.Finding.Unknown;
import io.mpshare.policing.Finding.Why;
import io.mpshare.policing.Snapshot.GpuSample;
import io.mpshare.policing.Snapshot.ProcessSample;
import io.mpshare.policing.Snapshot.Role;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

/** The pure engine: snapshot and allocations in, findings and usage out. Slack 128 MiB, reserve 512 MiB. */
class VerdictEngineTest {
    static final Instant T = Instant.parse("2026-11-30T04:00:00Z");
    static final VerdictEngine ENGINE = new VerdictEngine(128);

    static final Allocation A = Fixtures.pod("a").container("main", 2048).build();          // GPU 0, request 2048
    static final Allocation B = Fixtures.pod("b").container("main", 4096).build();          // GPU 0, neighbour
    static final Allocation TWO = Fixtures.pod("two").on(0, 1).container("main", 1024).build(); // 1024 on each of 0 and 1

    static ProcessSample client(long pid, long mib, Allocation owner) {
        return new ProcessSample(pid, mib, Role.MPS_CLIENT, Optional.of(new Owner(owner.podUid(), "c" + pid, "main")));
    }

    static ProcessSample nonClient(long pid, long mib, Allocation owner) {
        return new ProcessSample(pid, mib, Role.NOT_MPS, Optional.of(new Owner(owner.podUid(), "c" + pid, "main")));
    }

    static GpuSample gpu(int index, ProcessSample... ps) {
        return new GpuSample(index, "GPU-" + index, 143771, Arrays.stream(ps).mapToLong(ProcessSample::usedMib).sum(), true, true, "", List.of(ps));
    }

    static Map<String, Allocation> allocs(Allocation... as) {
        Map<String, Allocation> m = new LinkedHashMap<>();
        for (Allocation a : as) m.put(a.podUid(), a);
        return m;
    }

    static VerdictEngine.Judgement judge(Map<String, Allocation> allocations, GpuSample... gpus) {
        return ENGINE.judge(new Snapshot(T, List.of(gpus)), allocations);
    }

    @Test
    void allowed_isTheChargePlusOneSlackPerPod() {
        assertThat(ENGINE.allowedMib(A)).isEqualTo(2048 + 512 + 128);
        assertThat(ENGINE.allowedMib(TWO)).isEqualTo(1024 + 512 + 128);
        Allocation twoContainers = Fixtures.pod("pair").container("main", 2048).container("side", 1024).build();
        assertThat(ENGINE.allowedMib(twoContainers)).isEqualTo(2048 + 1024 + 2 * 512 + 128); // a reserve per GPU-asking container
    }

    /** Issue 11 item 5: each process used to bring its own reserve + slack (30 processes: ~19 GiB over the booking). */
    @Test
    void judge_thirtyProcessesOfOnePod_allowedNoMoreThanItsChargePlusOneSlack() {
        ProcessSample[] ps = new ProcessSample[31];
        for (int i = 0; i < 30; i++) ps[i] = client(1000 + i, 600, A); // each far under its own 2560 MiB cap: 18,000 MiB together
        ps[30] = client(200, 4000, B);
        var j = judge(allocs(A, B), gpu(0, ps));
        assertThat(j.findings()).singleElement().isInstanceOfSatisfying(OverLimit.class, o -> {
            assertThat(o.podUid()).isEqualTo(A.podUid());
            assertThat(o.usedMib()).isEqualTo(30 * 600);
            assertThat(o.allowedMib()).isEqualTo(A.demand().chargeMib() + 128).isEqualTo(2688);
            // 2688 / 600: four processes may stay (2400), the 26 newest are the offenders
            assertThat(o.offenders()).hasSize(26).extracting(ProcessSample::pid).startsWith(1029L, 1028L).doesNotContain(1000L, 1003L);
        });
        // the same 30 processes within the charge together are fine
        ProcessSample[] small = new ProcessSample[30];
        for (int i = 0; i < 30; i++) small[i] = client(1000 + i, 89, A); // 2670 <= 2688
        assertThat(judge(allocs(A), gpu(0, small)).findings()).isEmpty();
    }

    @Test
    void judge_podWithinItsShare_findsNothing() {
        var j = judge(allocs(A, B), gpu(0, client(100, 2048 + 512, A), client(200, 4000, B)));
        assertThat(j.findings()).isEmpty();
    }

    @Test
    void judge_exactlyAtTheLimit_isNotOver() {
        assertThat(judge(allocs(A), gpu(0, client(100, 2688, A))).findings()).isEmpty();
        assertThat(judge(allocs(A), gpu(0, client(100, 2689, A))).findings()).hasSize(1);
    }

    @Test
    void judge_overLimitSingleProcess_namesItAsTheOffender() {
        var j = judge(allocs(A, B), gpu(0, client(100, 5000, A), client(200, 4000, B)));
        assertThat(j.findings()).singleElement().isInstanceOfSatisfying(OverLimit.class, o -> {
            assertThat(o.podUid()).isEqualTo(A.podUid());
            assertThat(o.usedMib()).isEqualTo(5000);
            assertThat(o.allowedMib()).isEqualTo(2688);
            assertThat(o.offenders()).extracting(ProcessSample::pid).containsExactly(100L);
        });
    }

    @Test
    void judge_envTamperedClient_raisedItsCap_showsAsOverLimit() {
        // the client set CUDA_MPS_PINNED_DEVICE_MEM_LIMIT=0=20G; the server ceiling (largest allocation, B's) let it reach ~4.6 GiB
        var j = judge(allocs(A, B), gpu(0, client(100, 4608, A), client(200, 1000, B)));
        assertThat(j.findings()).singleElement().isInstanceOf(OverLimit.class);
    }

    @Test
    void judge_fourProcessesEachUnderTheCapButOverTogether_overWithFewestOffenders() {
        // each at 1000 MiB: under its own per-process cap (2048 + 512) but 4000 > 2048 + 512 + 128 = 2688 together
        var j = judge(allocs(A, B), gpu(0, client(101, 1000, A), client(102, 1000, A), client(103, 1000, A), client(104, 1000, A),
                client(200, 4000, B)));
        assertThat(j.findings()).singleElement().isInstanceOfSatisfying(OverLimit.class, o -> {
            assertThat(o.usedMib()).isEqualTo(4000);
            assertThat(o.allowedMib()).isEqualTo(2688);
            assertThat(o.clients()).hasSize(4);
            // without 104: 3000 > 2688; without 104, 103: 2000 <= 2688 → two offenders, the newest PIDs on a tie
            assertThat(o.offenders()).extracting(ProcessSample::pid).containsExactly(104L, 103L);
        });
    }

    @Test
    void judge_offendersAreLargestFirst() {
        var j = judge(allocs(A), gpu(0, client(101, 300, A), client(102, 3500, A), client(103, 900, A)));
        assertThat(((OverLimit) j.findings().getFirst()).offenders()).extracting(ProcessSample::pid).containsExactly(102L);
    }

    @Test
    void judge_neighbourOverTheLimit_isTheOnlyFinding() {
        var j = judge(allocs(A, B), gpu(0, client(100, 2000, A), client(200, 9000, B)));
        assertThat(j.findings()).singleElement().isInstanceOfSatisfying(OverLimit.class, o -> {
            assertThat(o.podUid()).isEqualTo(B.podUid());
            assertThat(o.offenders()).extracting(ProcessSample::pid).containsExactly(200L);
        });
    }

    @Test
    void judge_multiGpuPod_isJudgedPerGpu() {
        var j = judge(allocs(TWO), gpu(0, client(100, 1500, TWO)), gpu(1, client(100, 3000, TWO)));
        assertThat(j.findings()).singleElement().satisfies(f -> assertThat(f.gpu()).isEqualTo(1));
    }

    @Test
    void judge_rogueNonMpsProcess_isRogueAndNotCountedInTheLimit() {
        var j = judge(allocs(A, B), gpu(0, client(100, 1000, A), nonClient(101, 9000, A), client(200, 4000, B)));
        assertThat(j.findings()).singleElement().isInstanceOfSatisfying(Rogue.class, r -> {
            assertThat(r.why()).isEqualTo(Why.NOT_MPS_CLIENT);
            assertThat(r.process().pid()).isEqualTo(101);
            assertThat(r.pod()).contains(A.pod());
        });
    }

    @Test
    void judge_processOnAGpuThePodHasNoAllocationOn_isRogue() {
        var j = judge(allocs(A), gpu(0, client(100, 1000, A)), gpu(1, client(101, 500, A)));
        assertThat(j.findings()).singleElement().isInstanceOfSatisfying(Rogue.class, r -> {
            assertThat(r.why()).isEqualTo(Why.NO_ALLOCATION_ON_GPU);
            assertThat(r.gpu()).isEqualTo(1);
        });
    }

    @Test
    void judge_podWithNoAllocationAtAll_isRogue() {
        var stranger = new ProcessSample(300, 700, Role.MPS_CLIENT, Optional.of(Owner.pod("uid-privileged")));
        var j = judge(allocs(A), gpu(0, stranger));
        assertThat(j.findings()).singleElement().isInstanceOfSatisfying(Rogue.class, r -> {
            assertThat(r.why()).isEqualTo(Why.NO_ALLOCATION_ON_GPU);
            assertThat(r.pod()).isEmpty();
            assertThat(r.podUid()).isEqualTo("uid-privileged");
        });
    }

    @Test
    void judge_exemptPod_isNotJudged() {
        var monitor = new ProcessSample(400, 300, Role.NOT_MPS, Optional.of(Owner.pod("uid-dcgm")));
        var snapshot = new Snapshot(T, List.of(gpu(0, monitor, client(100, 9000, A))));
        assertThat(ENGINE.judge(snapshot, allocs(A), java.util.Set.of("uid-dcgm", A.podUid())).findings()).isEmpty();
        assertThat(ENGINE.judge(snapshot, allocs(A), java.util.Set.of()).findings()).hasSize(2);
    }

    @Test
    void judge_unknownHostProcess_isReportedOnly() {
        var host = new ProcessSample(777, 900, Role.NOT_MPS, Optional.empty());
        var j = judge(allocs(A), gpu(0, host, client(100, 1000, A)));
        assertThat(j.findings()).singleElement().isInstanceOfSatisfying(Unknown.class, u -> assertThat(u.process().pid()).isEqualTo(777));
    }

    @Test
    void judge_mpsServer_isNeitherRogueNorUnknown() {
        var server = new ProcessSample(50, 300, Role.MPS_SERVER, Optional.empty());
        assertThat(judge(allocs(A), gpu(0, server, client(100, 1000, A))).findings()).isEmpty();
    }

    @Test
    void judge_unsharedOrUnreadGpu_isNotJudged() {
        var unshared = new GpuSample(0, "GPU-0", 143771, 9000, false, true, "", List.of(nonClient(101, 9000, A)));
        var failed = GpuSample.failed(1, "GPU-1", true, true, "NVML_ERROR_GPU_IS_LOST");
        assertThat(ENGINE.judge(new Snapshot(T, List.of(unshared, failed)), allocs(A)).findings()).isEmpty();
    }

    @Test
    void usage_allocatedAndUsedPerGpuAndContainer_roguesIncluded() {
        var side = new ProcessSample(102, 400, Role.MPS_CLIENT, Optional.of(new Owner(A.podUid(), "c2", "side")));
        var j = judge(allocs(A, B), gpu(0, client(100, 1000, A), client(101, 600, A), side), gpu(1, nonClient(103, 50, A)));
        var u = j.usage().get(A.podUid());
        assertThat(u.at()).isEqualTo(T);
        assertThat(u.gpus()).containsExactly(new GpuUsage(0, A.demand().chargeMib(), 2000, 3), new GpuUsage(1, 0, 50, 1));
        assertThat(u.containers()).containsExactly(new ContainerUsage("main", 0, 1600, 2), new ContainerUsage("side", 0, 400, 1),
                new ContainerUsage("main", 1, 50, 1));
        assertThat(j.usage().get(B.podUid()).gpus()).containsExactly(new GpuUsage(0, B.demand().chargeMib(), 0, 0));
    }
}
