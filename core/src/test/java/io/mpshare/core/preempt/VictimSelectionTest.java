package io.mpshare.core.preempt;

import io.mpshare.core.ledger.Allocation;
import io.mpshare.core.ledger.Ledger;
import io.mpshare.core.ledger.NodeState;
import io.mpshare.core.ledger.Phase;
import io.mpshare.core.model.GpuDemand;
import io.mpshare.core.model.PodKey;
import io.mpshare.core.policy.BinpackPolicy;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static io.mpshare.core.CoreFixtures.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.params.provider.Arguments.argumentSet;

class VictimSelectionTest {
    private static final long G = 1024;
    private static final int PREEMPTOR = 1000;

    /** A booked pod: name, GPU indices, GiB per GPU, cores per GPU, priority (null = unknown). */
    record Booked(String name, List<Integer> gpus, long gib, int core, Integer priority) {}

    static Booked on(int gpu, String name, long gib, Integer priority) { return new Booked(name, List.of(gpu), gib, 0, priority); }

    static Booked cores(int gpu, String name, long gib, int core, Integer priority) { return new Booked(name, List.of(gpu), gib, core, priority); }

    /** A node of {@code gpus} 16 GiB GPUs with the given bookings (charged exactly, no reserve). */
    static NodeState node(int gpus, List<Booked> booked, Map<PodKey, Integer> priorities) {
        long[] sizes = new long[gpus];
        java.util.Arrays.fill(sizes, 16 * G);
        Ledger l = ledger(io.mpshare.core.CoreFixtures.node("n", sizes));
        for (Booked b : booked) {
            List<String> uuids = new ArrayList<>();
            for (int g : b.gpus()) uuids.add("GPU-n-" + g);
            GpuDemand d = GpuDemand.simple(b.gib() * G * b.gpus().size(), b.core() * b.gpus().size(), b.gpus().size(), 0);
            l.restore(new Allocation(key(b.name()), "uid-" + b.name(), "n", b.gpus(), uuids, d, T0, Phase.BOUND));
            if (b.priority() != null) priorities.put(key(b.name()), b.priority());
        }
        return l.node("n");
    }

    static GpuDemand need(long gib, int core, int count) { return GpuDemand.simple(gib * G * count, core * count, count, 0); }

    static Stream<Arguments> choices() {
        return Stream.of(
                argumentSet("one victim frees the GPU that needs the fewest",
                        2, List.of(on(0, "a", 4, 0), on(0, "b", 4, 0), on(0, "c", 4, 0), on(0, "d", 4, 0), on(1, "e", 12, 0)), need(8, 0, 1),
                        List.of("e"), List.of(1)),
                argumentSet("fewest victims beat lower priority",
                        1, List.of(on(0, "small1", 4, 0), on(0, "small2", 4, 0), on(0, "big", 8, 5)), need(8, 0, 1),
                        List.of("big"), List.of(0)),
                argumentSet("among equally few, the lowest priority",
                        1, List.of(on(0, "p5", 8, 5), on(0, "p1", 8, 1)), need(8, 0, 1),
                        List.of("p1"), List.of(0)),
                argumentSet("among equally few on different GPUs, the lowest highest priority",
                        2, List.of(on(0, "p7", 16, 7), on(1, "p3", 16, 3)), need(10, 0, 1),
                        List.of("p3"), List.of(1)),
                argumentSet("pods of equal or higher priority are never victims",
                        2, List.of(on(0, "same", 16, PREEMPTOR), on(1, "higher", 8, PREEMPTOR + 1), on(1, "low", 8, 0)), need(8, 0, 1),
                        List.of("low"), List.of(1)),
                argumentSet("a pod of unknown priority is never a victim",
                        2, List.of(on(0, "unknown", 16, null), on(1, "low1", 8, 0), on(1, "low2", 8, 0)), need(16, 0, 1),
                        List.of("low1", "low2"), List.of(1)),
                argumentSet("cores count as well as memory",
                        1, List.of(cores(0, "mem", 8, 0, 0), cores(0, "sm", 1, 70, 0)), need(2, 50, 1),
                        List.of("sm"), List.of(0)),
                argumentSet("two GPUs: the two cheapest, victims united",
                        3, List.of(on(0, "x", 16, 0), new Booked("wide", List.of(1, 2), 16, 0, 0)), need(8, 0, 2),
                        List.of("wide"), List.of(1, 2)),
                argumentSet("victims listed lowest priority first",
                        1, List.of(on(0, "p9", 6, 9), on(0, "p2", 6, 2), on(0, "keep", 4, 900)), need(12, 0, 1),
                        List.of("p2", "p9"), List.of(0)));
    }

    @ParameterizedTest
    @MethodSource("choices")
    void choose_picksVictims(int gpus, List<Booked> booked, GpuDemand demand, List<String> victims, List<Integer> onGpus) {
        Map<PodKey, Integer> prio = new HashMap<>();
        NodeState n = node(gpus, booked, prio);
        var c = VictimSelection.choose(n, demand, PREEMPTOR, VictimSelection.from(prio), a -> true);
        assertThat(c).isInstanceOf(VictimSelection.Choice.Victims.class);
        var v = (VictimSelection.Choice.Victims) c;
        assertThat(v.victims()).extracting(a -> a.pod().name()).containsExactlyElementsOf(victims);
        assertThat(v.gpuIndices()).containsExactlyElementsOf(onGpus);
    }

    static Stream<Arguments> noRoom() {
        return Stream.of(
                argumentSet("only higher-priority pods hold the room",
                        1, List.of(on(0, "vip", 16, PREEMPTOR + 5)), need(4, 0, 1)),
                argumentSet("room spread over GPUs frees none enough",
                        2, List.of(on(0, "a", 8, 0), on(0, "vipA", 8, PREEMPTOR), on(1, "b", 8, 0), on(1, "vipB", 8, PREEMPTOR)), need(12, 0, 1)),
                argumentSet("the demand is larger than any GPU",
                        2, List.of(on(0, "a", 16, 0)), need(20, 0, 1)),
                argumentSet("two GPUs wanted, one can be freed",
                        2, List.of(on(0, "a", 16, 0), on(1, "vip", 16, PREEMPTOR)), need(8, 0, 2)));
    }

    @ParameterizedTest
    @MethodSource("noRoom")
    void choose_noGpuCanBeFreed(int gpus, List<Booked> booked, GpuDemand demand) {
        Map<PodKey, Integer> prio = new HashMap<>();
        var c = VictimSelection.choose(node(gpus, booked, prio), demand, PREEMPTOR, VictimSelection.from(prio), a -> true);
        assertThat(c).isInstanceOf(VictimSelection.Choice.NoRoom.class);
        assertThat(((VictimSelection.Choice.NoRoom) c).reason()).contains("lower priority than " + PREEMPTOR).doesNotContain("%");
    }

    @Test
    void choose_fitsAlready_notNeeded() {
        Map<PodKey, Integer> prio = new HashMap<>();
        var c = VictimSelection.choose(node(2, List.of(on(0, "a", 16, 0)), prio), need(8, 0, 1), PREEMPTOR, VictimSelection.from(prio), a -> true);
        assertThat(c).isEqualTo(new VictimSelection.Choice.NotNeeded(List.of(1)));
    }

    @Test
    void freesRoom_uidRule_anotherUidLeftOnTheNode_false() {
        Map<PodKey, Integer> prio = new HashMap<>();
        Ledger l = ledger(io.mpshare.core.CoreFixtures.node("n", 16 * G, 16 * G));
        l.restore(new Allocation(key("low"), "u1", "n", List.of(0), List.of("GPU-n-0"), GpuDemand.simple(16 * G, 0, 1, 0), T0, Phase.BOUND));
        var otherUid = new GpuDemand(1, 8 * G, 0, 0, 8 * G, List.of(new io.mpshare.core.model.ContainerShare("main", false, 8 * G, 0)), java.util.OptionalLong.of(2000));
        l.restore(new Allocation(key("vip"), "u2", "n", List.of(1), List.of("GPU-n-1"), otherUid, T0, Phase.BOUND));
        prio.put(key("low"), 0);
        prio.put(key("vip"), PREEMPTOR + 1);
        var mine = new GpuDemand(1, 12 * G, 0, 0, 12 * G, List.of(new io.mpshare.core.model.ContainerShare("main", false, 12 * G, 0)), java.util.OptionalLong.of(1000));
        var v = (VictimSelection.Choice.Victims) VictimSelection.choose(l.node("n"), mine, PREEMPTOR, VictimSelection.from(prio), a -> true);
        assertThat(v.victims()).extracting(a -> a.pod().name()).containsExactly("low");
        assertThat(VictimSelection.freesRoom(l.node("n"), v.victims(), mine, new BinpackPolicy(false))).isTrue();
        assertThat(VictimSelection.freesRoom(l.node("n"), v.victims(), mine, new BinpackPolicy(true))).as("UID 2000 stays on the node").isFalse();
    }

    @Test
    void choose_ineligibleBookingsAreNotNamed() {
        Map<PodKey, Integer> prio = new HashMap<>();
        NodeState n = node(1, List.of(on(0, "assumed", 8, 0), on(0, "bound", 8, 0)), prio);
        var c = VictimSelection.choose(n, need(8, 0, 1), PREEMPTOR, VictimSelection.from(prio), a -> !a.pod().name().equals("assumed"));
        assertThat(((VictimSelection.Choice.Victims) c).victims()).extracting(a -> a.pod().name()).containsExactly("bound");
    }

    @Test
    void choose_manySmallPods_fallsBackToReprieveAndStillFrees() {
        // 60 pods of 256 MiB on one GPU: the exact search runs out of budget; the fallback still frees enough, no more
        Map<PodKey, Integer> prio = new HashMap<>();
        Ledger l = ledger(io.mpshare.core.CoreFixtures.node("n", 16 * G));
        for (int i = 0; i < 60; i++) {
            l.restore(new Allocation(key("s" + i), "u" + i, "n", List.of(0), List.of("GPU-n-0"), GpuDemand.simple(256, 1, 1, 0), T0, Phase.BOUND));
            prio.put(key("s" + i), i % 3);
        }
        var c = VictimSelection.choose(l.node("n"), GpuDemand.simple(12 * G, 0, 1, 0), PREEMPTOR, VictimSelection.from(prio), a -> true);
        var v = (VictimSelection.Choice.Victims) c;
        long freed = v.victims().stream().mapToLong(a -> a.demand().chargeMib()).sum();
        long freeBefore = 16 * G - 60 * 256;
        assertThat(freeBefore + freed).isGreaterThanOrEqualTo(12 * G);
        assertThat(freeBefore + freed - 256).isLessThan(12 * G); // minimal: giving one back would not fit
    }
}
