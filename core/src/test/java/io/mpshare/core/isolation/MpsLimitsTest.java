package io.mpshare.core.isolation;

import io.mpshare.core.MemoryUnit;
import io.mpshare.core.Names;
import io.mpshare.core.isolation.MpsLimits.Cap;
import io.mpshare.core.ledger.Allocation;
import io.mpshare.core.ledger.Phase;
import io.mpshare.core.model.ContainerRequest;
import io.mpshare.core.model.DemandResolver;
import io.mpshare.core.model.GpuDemand;
import io.mpshare.core.model.PodInfo;
import io.mpshare.core.model.PodKey;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The isolation arithmetic, one table per rule; every ceiling case also checks it is never below a cap it serves. */
class MpsLimitsTest {
    static final long RESERVE = 512;

    /** A booking as the extender makes it: the resolver's demand (reserve 512 MiB) on {@code gpus}. */
    static Allocation booked(String name, int gpuCount, List<ContainerRequest> containers, Integer... gpus) {
        var info = new PodInfo(PodKey.of("default", name), "uid-" + name, containers, gpuCount, OptionalLong.empty());
        GpuDemand d = ((DemandResolver.Resolution.Resolved) new DemandResolver(RESERVE, MemoryUnit.GIB).resolve(info)).demand();
        var uuids = Arrays.stream(gpus).map(g -> "GPU-" + g).toList();
        return new Allocation(info.key(), info.uid(), "node-1", List.of(gpus), uuids, d, Instant.EPOCH, Phase.BOUND);
    }

    static List<ContainerRequest> app(long gib) { return List.of(ContainerRequest.app("main", gib * 1024, 0)); }

    record CapCase(String name, List<Long> units, MemoryUnit unit, long reserve, List<Long> caps, String env) {}

    @Test void clientCapsMib_table() {
        List<CapCase> cases = List.of(
                new CapCase("7 GiB + 512 MiB reserve", List.of(7L), MemoryUnit.GIB, 512, List.of(7680L), "0=7680M"),
                new CapCase("one cap per visible ordinal", List.of(7L, 7L), MemoryUnit.GIB, 1024, List.of(8192L, 8192L), "0=8192M,1=8192M"),
                new CapCase("IDs split unevenly: each ordinal from its own units", List.of(10L, 4L), MemoryUnit.GIB, 1024,
                        List.of(11264L, 5120L), "0=11264M,1=5120M"),
                new CapCase("MiB units", List.of(3000L), MemoryUnit.MIB, 1024, List.of(4024L), "0=4024M"),
                new CapCase("no reserve (an ACK-placed pod)", List.of(2L), MemoryUnit.GIB, 0, List.of(2048L), "0=2048M"));
        for (CapCase c : cases) {
            assertThat(MpsLimits.clientCapsMib(c.units(), c.unit(), c.reserve())).as(c.name()).isEqualTo(c.caps());
            assertThat(MpsLimits.pinnedLimit(c.caps())).as(c.name()).isEqualTo(c.env());
        }
    }

    @Test void clientCapMib_overflowOrNegative_refused() {
        assertThat(MpsLimits.clientCapMib(3072, 1024)).isEqualTo(4096);
        assertThatThrownBy(() -> MpsLimits.clientCapMib(Long.MAX_VALUE, 1)).isInstanceOf(ArithmeticException.class);
        assertThatThrownBy(() -> MpsLimits.clientCapMib(-1, 1024)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test void clientEnv_isolationVariablesInOrder() {
        var env = MpsLimits.clientEnv(List.of("GPU-a", "GPU-b"), List.of(4608L, 4608L), 30, "/run/mpshare/blue/pipe");
        assertThat(env).containsExactly(
                Map.entry(Names.ENV_VISIBLE_DEVICES, "GPU-a,GPU-b"),
                Map.entry(Names.ENV_MPS_PIPE, "/run/mpshare/blue/pipe"),
                Map.entry(Names.ENV_MPS_MEM_LIMIT, "0=4608M,1=4608M"),
                Map.entry(Names.ENV_MPS_THREADS, "30"));
        assertThat(MpsLimits.clientEnv(List.of("GPU-a"), List.of(7680L), 0, "/p")).as("no core share asked: no thread percentage")
                .doesNotContainKey(Names.ENV_MPS_THREADS);
        assertThatThrownBy(() -> MpsLimits.clientEnv(List.of("GPU-a"), List.of(1L, 2L), 0, "/p")).hasMessageContaining("one cap per visible GPU");
    }

    record RoundCase(long capMib, long ceilingMib) {}

    @Test void ceilingMib_table() {
        List<RoundCase> cases = List.of(
                new RoundCase(0, 1024),        // nothing booked: the smallest the daemon holds
                new RoundCase(1, 1024),
                new RoundCase(1024, 1024),     // whole GiB stays
                new RoundCase(1025, 2048),     // never below the booked cap
                new RoundCase(2560, 3072),     // 2 GiB + reserve: the daemon would read 2560M back as 2G
                new RoundCase(4097, 5120),
                new RoundCase(7680, 8192),
                new RoundCase(10752, 11264));
        for (RoundCase c : cases) {
            assertThat(MpsLimits.ceilingMib(c.capMib())).as(c.capMib() + " MiB").isEqualTo(c.ceilingMib()).isGreaterThanOrEqualTo(c.capMib());
            assertThat(MpsLimits.wholeGib(c.ceilingMib())).isTrue();
        }
        assertThatThrownBy(() -> MpsLimits.ceilingMib(-1)).isInstanceOf(IllegalArgumentException.class);
    }

    record CeilingCase(String name, List<Allocation> booked, Map<Integer, Long> expected) {}

    @Test void ceilingPerGpu_table() {
        List<CeilingCase> cases = List.of(
                new CeilingCase("nothing booked: the 1 GiB floor everywhere", List.of(), Map.of(0, 1024L, 1, 1024L, 2, 1024L)),
                new CeilingCase("7 GiB + 512 MiB reserve = 7680 MiB: 8 GiB", List.of(booked("a", 1, app(7), 0)),
                        Map.of(0, 8192L, 1, 1024L, 2, 1024L)),
                new CeilingCase("2 GiB + reserve = 2560 MiB: 3 GiB, never the 2 GiB the daemon would cut 2560M to",
                        List.of(booked("a", 1, app(2), 1)), Map.of(0, 1024L, 1, 3072L, 2, 1024L)),
                new CeilingCase("the largest cap on the GPU, not the sum", List.of(booked("a", 1, app(7), 0), booked("b", 1, app(3), 0)),
                        Map.of(0, 8192L, 1, 1024L, 2, 1024L)),
                new CeilingCase("two containers: each is its own client, the larger cap counts (3 GiB + reserve)",
                        List.of(booked("a", 1, List.of(ContainerRequest.app("main", 3072, 0), ContainerRequest.app("side", 1024, 0)), 2)),
                        Map.of(0, 1024L, 1, 1024L, 2, 4096L)),
                new CeilingCase("gpu-count 2: 8 GiB split, 4 GiB + reserve on each", List.of(booked("a", 2, app(8), 0, 1)),
                        Map.of(0, 5120L, 1, 5120L, 2, 1024L)),
                new CeilingCase("init container larger than the app",
                        List.of(booked("a", 1, List.of(ContainerRequest.init("setup", 6144, 0), ContainerRequest.app("main", 2048, 0)), 0)),
                        Map.of(0, 7168L, 1, 1024L, 2, 1024L)),
                new CeilingCase("a GPU named in a booking but not on the node is left out", List.of(booked("a", 1, app(2), 7)),
                        Map.of(0, 1024L, 1, 1024L, 2, 1024L)));
        for (CeilingCase c : cases) {
            assertThat(MpsLimits.ceilingPerGpu(c.booked(), List.of(0, 1, 2))).as(c.name()).isEqualTo(c.expected());
            for (Allocation a : c.booked())
                for (var share : a.demand().containers())
                    for (int g : a.gpuIndices())
                        if (c.expected().containsKey(g))
                            assertThat(c.expected().get(g)).as(c.name() + ": never below a booked cap")
                                    .isGreaterThanOrEqualTo(MpsLimits.clientCapMib(share.memMibPerGpu(), a.demand().reserveMib()));
        }
    }

    /** A server key made of a fault domain and a GPU: the same rule gives each domain on a GPU its own ceiling. */
    record Server(String domain, int gpu) {}

    @Test void ceilings_groupedByFaultDomain_eachDomainItsOwnCeiling() {
        Allocation big = booked("big", 1, app(20), 0), small = booked("small", 1, app(2), 0), other = booked("other", 1, app(5), 1);
        Map<String, String> domainOf = Map.of("big", "team-a", "small", "team-b", "other", "team-a");
        var caps = new ArrayList<Cap<Server>>();
        for (Allocation a : List.of(big, small, other)) caps.addAll(MpsLimits.caps(a, g -> new Server(domainOf.get(a.pod().name()), g)));
        var servers = List.of(new Server("team-a", 0), new Server("team-b", 0), new Server("team-a", 1), new Server("team-b", 1));
        assertThat(MpsLimits.ceilings(caps, servers)).containsExactly(
                Map.entry(new Server("team-a", 0), 21504L),   // 20 GiB + 512 → 21 GiB
                Map.entry(new Server("team-b", 0), 3072L),    // team-b's client on GPU 0 is not raised to team-a's 21 GiB
                Map.entry(new Server("team-a", 1), 6144L),
                Map.entry(new Server("team-b", 1), 1024L));   // nothing of team-b on GPU 1: the floor
        assertThat(MpsLimits.ceilingPerGpu(List.of(big, small, other), List.of(0, 1)))
                .as("one daemon for the node: the largest cap on the GPU, whoever booked it").containsExactly(Map.entry(0, 21504L), Map.entry(1, 6144L));
    }

    @Test void largestClientCapMib_noContainers_isTheCharge() {
        var d = new GpuDemand(1, 2048, 0, 0, 2048, List.of(), OptionalLong.empty());
        assertThat(MpsLimits.largestClientCapMib(d)).isEqualTo(2048);
    }

    @Test void threadPercentages_perDomain_largestShareOrTheWholeGpuWhenOneAskedNone() {
        Allocation a30 = booked("a30", 1, List.of(ContainerRequest.app("main", 2048, 30)), 0);
        Allocation a50 = booked("a50", 1, List.of(ContainerRequest.app("main", 2048, 50)), 0);
        Allocation free = booked("free", 1, app(2), 0);
        Allocation mixed = booked("mixed", 1, List.of(ContainerRequest.app("main", 2048, 20), ContainerRequest.app("side", 1024, 0)), 1);
        assertThat(MpsLimits.largestClientSharePercent(a30.demand())).isEqualTo(30);
        assertThat(MpsLimits.largestClientSharePercent(mixed.demand())).as("one container asked none: unrestricted").isZero();
        Map<String, String> domainOf = Map.of("a30", "pod-a30", "a50", "team-a", "free", "team-a", "mixed", "pod-mixed");
        var shares = new ArrayList<MpsLimits.Share<Server>>();
        for (Allocation x : List.of(a30, a50, free, mixed)) shares.addAll(MpsLimits.shares(x, g -> new Server(domainOf.get(x.pod().name()), g)));
        var servers = List.of(new Server("pod-a30", 0), new Server("team-a", 0), new Server("pod-mixed", 1), new Server("team-b", 0));
        assertThat(MpsLimits.threadPercentages(shares, servers)).containsExactly(
                Map.entry(new Server("pod-a30", 0), 30),    // a pod domain: the pod's own share
                Map.entry(new Server("team-a", 0), 100),    // a client there asked no share: the server restricts nobody
                Map.entry(new Server("pod-mixed", 1), 100),
                Map.entry(new Server("team-b", 0), 100));   // nothing booked there
        var bothAsked = new ArrayList<MpsLimits.Share<String>>();
        bothAsked.addAll(MpsLimits.shares(a30, g -> "t"));
        bothAsked.addAll(MpsLimits.shares(a50, g -> "t"));
        assertThat(MpsLimits.threadPercentages(bothAsked, List.of("t"))).as("the largest share booked on the server").containsEntry("t", 50);
    }
}
