package io.mpshare.core.codec;

import io.mpshare.core.MemoryUnit;
import io.mpshare.core.Names;
import io.mpshare.core.codec.AllocationCodec.Decoded;
import io.mpshare.core.ledger.Allocation;
import io.mpshare.core.ledger.Phase;
import io.mpshare.core.model.ContainerRequest;
import io.mpshare.core.model.DemandResolver;
import io.mpshare.core.model.GpuDemand;
import io.mpshare.core.model.NodeInventory;
import io.mpshare.core.model.PodInfo;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.stream.Stream;

import static io.mpshare.core.CoreFixtures.*;
import static io.mpshare.core.model.ContainerRequest.app;
import static io.mpshare.core.model.ContainerRequest.init;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.params.provider.Arguments.argumentSet;

class AllocationCodecTest {
    private static final NodeInventory N1 = h200s("n1", 4);
    private static final Instant AT = Instant.parse("2026-03-01T12:34:56.789Z");

    private static PodInfo pod(int gpuCount, ContainerRequest... cs) {
        return new PodInfo(key("p"), "uid-p", List.of(cs), gpuCount, OptionalLong.of(1000));
    }

    private static Allocation allocation(PodInfo pod, List<Integer> gpus, Phase phase) {
        GpuDemand d = ((DemandResolver.Resolution.Resolved) new DemandResolver(512).resolve(pod)).demand();
        List<String> uuids = gpus.stream().map(i -> "GPU-n1-" + i).toList();
        return new Allocation(pod.key(), pod.uid(), "n1", gpus, uuids, d, AT, phase);
    }

    static Stream<Arguments> roundTrips() {
        return Stream.of(
                argumentSet("one container, assumed", pod(1, app("main", 7168, 0)), List.of(0), Phase.ASSUMED),
                argumentSet("one container, bound", pod(1, app("main", 7168, 30)), List.of(2), Phase.BOUND),
                argumentSet("one container, assigned", pod(1, app("main", 7168, 30)), List.of(3), Phase.ASSIGNED),
                argumentSet("two GPUs, two containers", pod(2, app("main", 14336, 40), app("side", 2048, 0)), List.of(0, 3), Phase.BOUND),
                argumentSet("init container listed first", pod(1, init("setup", 9216, 0), app("main", 1024, 10)), List.of(1), Phase.ASSIGNED),
                argumentSet("only init asks GPU", pod(1, init("setup", 1024, 0), app("web", 0, 0)), List.of(1), Phase.BOUND),
                argumentSet("native sidecar between init containers", pod(1, init("fetch", 2048, 0),
                        ContainerRequest.sidecar("proxy", 1024, 0), init("setup", 4096, 0), app("main", 1024, 10)), List.of(1), Phase.ASSIGNED));
    }

    @ParameterizedTest
    @MethodSource("roundTrips")
    void decode_encoded_sameAllocation(PodInfo pod, List<Integer> gpus, Phase phase) {
        Allocation a = allocation(pod, gpus, phase);
        Map<String, String> ann = AllocationCodec.encode(a, MemoryUnit.GIB);

        Decoded d = AllocationCodec.decode(pod, ann, phase == Phase.ASSUMED ? null : "n1", N1, phase != Phase.ASSUMED, MemoryUnit.GIB);

        assertThat(d).isEqualTo(new Decoded.Found(a));
    }

    @Test
    void encode_writesReadableLineAndAckKeys() {
        Allocation a = allocation(pod(2, app("main", 14336, 40)), List.of(0, 3), Phase.ASSIGNED);
        Map<String, String> ann = AllocationCodec.encode(a, MemoryUnit.GIB);

        assertThat(ann.get(Names.ANN_ALLOCATION)).isEqualTo("v1;node=n1;gpus=0,3;uuids=GPU-n1-0,GPU-n1-3;reserve=512;charge=7680/20;c=main:7168:20");
        assertThat(ann).containsEntry(Names.ANN_ASSUME_TIME, "2026-03-01T12:34:56.789Z")
                .containsEntry(Names.ANN_ASSIGNED, "true")
                .containsEntry(Names.ACK_GPU_MEM_IDX, "0,3")
                .containsEntry(Names.ACK_GPU_MEM_POD, "14")
                .containsEntry(Names.ACK_GPU_MEM_ASSIGNED, "true")
                .containsEntry(Names.ACK_GPU_MEM_ASSUME_TIME, "1772368496789000000");
    }

    /** ACK v1 annotations, unit → GPUs, MiB charged per GPU, phase. */
    static Stream<Arguments> ackPods() {
        return Stream.of(
                argumentSet("GiB pod on GPU 1, not assigned", Map.of(Names.ACK_GPU_MEM_IDX, "1", Names.ACK_GPU_MEM_POD, "7"),
                        MemoryUnit.GIB, List.of(1), 7168L, Phase.BOUND),
                argumentSet("assigned", Map.of(Names.ACK_GPU_MEM_IDX, "0", Names.ACK_GPU_MEM_POD, "20", Names.ACK_GPU_MEM_ASSIGNED, "true"),
                        MemoryUnit.GIB, List.of(0), 20480L, Phase.ASSIGNED),
                argumentSet("MiB unit", Map.of(Names.ACK_GPU_MEM_IDX, "2", Names.ACK_GPU_MEM_POD, "3000"),
                        MemoryUnit.MIB, List.of(2), 3000L, Phase.BOUND),
                argumentSet("no POD key: sum of app container limits", Map.of(Names.ACK_GPU_MEM_IDX, "3"),
                        MemoryUnit.GIB, List.of(3), 5120L, Phase.BOUND));
    }

    @ParameterizedTest
    @MethodSource("ackPods")
    void decode_ackV1_accountedWithoutReserve(Map<String, String> ann, MemoryUnit unit, List<Integer> gpus, long mib, Phase phase) {
        PodInfo p = pod(1, app("a", 4096, 0), app("b", 1024, 0), init("i", 9999, 0));
        Decoded d = AllocationCodec.decode(p, ann, "n1", N1, true, unit);

        Allocation a = ((Decoded.Found) d).allocation();
        assertThat(a.node()).isEqualTo("n1");
        assertThat(a.gpuIndices()).isEqualTo(gpus);
        assertThat(a.gpuUuids()).containsExactly("GPU-n1-" + gpus.getFirst());
        assertThat(a.demand().chargeMib()).isEqualTo(mib);
        assertThat(a.demand().reserveMib()).isZero();
        assertThat(a.phase()).isEqualTo(phase);
    }

    @Test
    void decode_ackGpuMissingFromInventory_placeholderUuid() {
        var a = AllocationCodec.found(AllocationCodec.decode(pod(1, app("a", 1024, 0)),
                Map.of(Names.ACK_GPU_MEM_IDX, "7", Names.ACK_GPU_MEM_POD, "1"), "n1", N1, true, MemoryUnit.GIB));
        assertThat(a.orElseThrow().gpuUuids()).containsExactly("unknown-gpu-7");
    }

    @Test
    void decode_ackAssumeTimeInNanoseconds_read() {
        var a = AllocationCodec.found(AllocationCodec.decode(pod(1, app("a", 1024, 0)),
                Map.of(Names.ACK_GPU_MEM_IDX, "0", Names.ACK_GPU_MEM_POD, "1", Names.ACK_GPU_MEM_ASSUME_TIME, "1772368496789000000"),
                "n1", N1, true, MemoryUnit.GIB));
        assertThat(a.orElseThrow().assumedAt()).isEqualTo(AT);
    }

    @Test
    void decode_oursAndAck_oursWins() {
        Allocation ours = allocation(pod(1, app("main", 7168, 0)), List.of(2), Phase.BOUND);
        var ann = new HashMap<>(AllocationCodec.encode(ours, MemoryUnit.GIB));
        ann.put(Names.ACK_GPU_MEM_IDX, "0");
        assertThat(AllocationCodec.found(AllocationCodec.decode(pod(1, app("main", 7168, 0)), ann, "n1", N1, true, MemoryUnit.GIB)))
                .contains(ours);
    }

    static Stream<Arguments> nothing() {
        return Stream.of(
                argumentSet("no annotations", Map.of(), "n1"),
                argumentSet("ACK index but not bound yet", Map.of(Names.ACK_GPU_MEM_IDX, "0", Names.ACK_GPU_MEM_POD, "7"), null),
                argumentSet("unrelated annotations", Map.of("example.com/x", "y"), "n1"));
    }

    @ParameterizedTest
    @MethodSource("nothing")
    void decode_noAllocationAnnotated_none(Map<String, String> ann, String node) {
        assertThat(AllocationCodec.decode(pod(1, app("a", 1024, 0)), ann, node, N1, node != null, MemoryUnit.GIB))
                .isInstanceOf(Decoded.None.class);
    }

    private static final String GOOD = "v1;node=n1;gpus=0;uuids=GPU-n1-0;reserve=512;charge=7680/0;c=main:7168:0";

    static Stream<Arguments> malformed() {
        return Stream.of(
                argumentSet("unknown version", Map.of(Names.ANN_ALLOCATION, GOOD.replace("v1;", "v9;")), "n1", List.of("unknown version")),
                argumentSet("other node than bound", Map.of(Names.ANN_ALLOCATION, GOOD), "n2", List.of("names node n1", "bound to n2")),
                argumentSet("gpus missing", Map.of(Names.ANN_ALLOCATION, GOOD.replace("gpus=0;", "")), "n1", List.of("field 'gpus' is missing")),
                argumentSet("gpu not a number", Map.of(Names.ANN_ALLOCATION, GOOD.replace("gpus=0", "gpus=zero")), "n1", List.of("zero")),
                argumentSet("negative gpu index", Map.of(Names.ANN_ALLOCATION, GOOD.replace("gpus=0", "gpus=-1")), "n1", List.of("negative")),
                argumentSet("more uuids than gpus", Map.of(Names.ANN_ALLOCATION, GOOD.replace("uuids=GPU-n1-0", "uuids=GPU-a,GPU-b")), "n1",
                        List.of("differ in number")),
                argumentSet("charge without core", Map.of(Names.ANN_ALLOCATION, GOOD.replace("7680/0", "7680")), "n1", List.of("cannot be read")),
                argumentSet("zero charge", Map.of(Names.ANN_ALLOCATION, GOOD.replace("7680/0", "0/0")), "n1", List.of("chargeMib must be > 0")),
                argumentSet("container entry short", Map.of(Names.ANN_ALLOCATION, GOOD.replace("main:7168:0", "main:7168")), "n1",
                        List.of("'main:7168' is not name:MiB:core")),
                argumentSet("field without '='", Map.of(Names.ANN_ALLOCATION, GOOD + ";oops"), "n1", List.of("'oops' has no '='")),
                argumentSet("bad assume time", Map.of(Names.ANN_ALLOCATION, GOOD, Names.ANN_ASSUME_TIME, "yesterday"), "n1",
                        List.of("'yesterday' is not RFC 3339")),
                argumentSet("ACK index not a number", Map.of(Names.ACK_GPU_MEM_IDX, "x", Names.ACK_GPU_MEM_POD, "7"), "n1",
                        List.of("ACK annotations of pod default/p")),
                argumentSet("ACK negative index", Map.of(Names.ACK_GPU_MEM_IDX, "-1", Names.ACK_GPU_MEM_POD, "7"), "n1",
                        List.of("ALIYUN_COM_GPU_MEM_IDX", "must be >= 0")),
                argumentSet("ACK zero memory", Map.of(Names.ACK_GPU_MEM_IDX, "0", Names.ACK_GPU_MEM_POD, "0"), "n1",
                        List.of("give no GPU memory")),
                argumentSet("ACK bad assume time", Map.of(Names.ACK_GPU_MEM_IDX, "0", Names.ACK_GPU_MEM_POD, "7",
                        Names.ACK_GPU_MEM_ASSUME_TIME, "soon"), "n1", List.of("soon")));
    }

    @ParameterizedTest
    @MethodSource("malformed")
    void decode_badAnnotation_malformedWithReason(Map<String, String> ann, String node, List<String> fragments) {
        Decoded d = AllocationCodec.decode(pod(1, app("main", 7168, 0)), ann, node, N1, true, MemoryUnit.GIB);
        assertThat(d).isInstanceOf(Decoded.Malformed.class);
        for (String f : fragments) assertThat(((Decoded.Malformed) d).reason()).contains(f);
        assertThat(AllocationCodec.found(d)).isEmpty();
    }

    @Test
    void encode_nativeSidecar_namedInS_andRequestedFollowsTheSidecarRule() {
        Allocation a = allocation(pod(1, ContainerRequest.sidecar("proxy", 1024, 0), init("setup", 4096, 0), app("main", 2048, 0)), List.of(0), Phase.BOUND);
        String line = AllocationCodec.encode(a, MemoryUnit.GIB).get(Names.ANN_ALLOCATION);
        assertThat(line).contains(";i=proxy:1024:0,setup:4096:0;s=proxy").contains("charge=" + (1024 + 512 + 4096 + 512));
        var back = ((Decoded.Found) AllocationCodec.decode(pod(1), AllocationCodec.encode(a, MemoryUnit.GIB), "n1", N1, true, MemoryUnit.GIB)).allocation();
        assertThat(back.demand().requestedMib()).isEqualTo(1024 + 4096);
        assertThat(back.demand().containers()).filteredOn(c -> c.name().equals("proxy")).singleElement()
                .satisfies(c -> assertThat(c.sidecar()).isTrue());
    }
}
