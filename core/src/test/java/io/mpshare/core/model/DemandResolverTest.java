package io.mpshare.core.model;

import io.mpshare.core.model.DemandResolver.Resolution;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.List;
import java.util.OptionalLong;
import java.util.stream.Stream;

import static io.mpshare.core.CoreFixtures.key;
import static io.mpshare.core.model.ContainerRequest.app;
import static io.mpshare.core.model.ContainerRequest.init;
import static io.mpshare.core.model.ContainerRequest.sidecar;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.params.provider.Arguments.argumentSet;

class DemandResolverTest {

    private static PodInfo pod(int gpuCount, ContainerRequest... cs) {
        return new PodInfo(key("p"), "uid-1", List.of(cs), gpuCount, OptionalLong.of(1000));
    }

    /** reserve, pod → expected charge MiB per GPU, core per GPU, requested MiB in all, GPU count. */
    static Stream<Arguments> resolvable() {
        return Stream.of(
                argumentSet("one app container: request plus one reserve", 512L, pod(1, app("main", 7168, 0)), 7680L, 0, 7168L, 1),
                argumentSet("app containers add up, a reserve each", 512L,
                        pod(1, app("a", 2048, 20), app("b", 1024, 10)), 2048 + 512 + 1024 + 512L, 30, 3072L, 1),
                argumentSet("init larger than app sum wins", 512L,
                        pod(1, init("setup", 8192, 0), app("main", 1024, 0)), 8704L, 0, 8192L, 1),
                argumentSet("app sum larger than init wins", 512L,
                        pod(1, init("setup", 1024, 0), app("a", 2048, 0), app("b", 2048, 0)), 5120L, 0, 4096L, 1),
                argumentSet("core is max of init and app sum, not their sum", 512L,
                        pod(1, init("setup", 1024, 80), app("a", 1024, 30), app("b", 1024, 30)), 3072L, 80, 2048L, 1),
                argumentSet("containers without GPU are not clients", 512L,
                        pod(1, app("sidecar", 0, 0), app("main", 4096, 0)), 4608L, 0, 4096L, 1),
                argumentSet("gpu-count 2 splits memory and core evenly", 512L,
                        pod(2, app("main", 14336, 60)), 7168 + 512L, 30, 14336L, 2),
                argumentSet("gpu-count 4 charges the reserve on every GPU", 256L,
                        pod(4, app("a", 4096, 0), app("b", 4096, 0)), 1024 + 256 + 1024 + 256L, 0, 8192L, 4),
                argumentSet("reserve 0 charges only the request", 0L, pod(1, app("main", 7168, 0)), 7168L, 0, 7168L, 1),
                argumentSet("exactly 100% core fits", 512L,
                        pod(1, app("a", 1024, 60), app("b", 1024, 40)), 3072L, 100, 2048L, 1));
    }

    @ParameterizedTest
    @MethodSource("resolvable")
    void resolve_validPod_chargesPerGpu(long reserve, PodInfo pod, long chargeMib, int core, long requestedMib, int gpus) {
        var r = new DemandResolver(reserve).resolve(pod);
        assertThat(r).isInstanceOf(Resolution.Resolved.class);
        GpuDemand d = ((Resolution.Resolved) r).demand();
        assertThat(d.chargeMib()).as("charge per GPU").isEqualTo(chargeMib);
        assertThat(d.chargeCore()).as("core per GPU").isEqualTo(core);
        assertThat(d.requestedMib()).as("requested").isEqualTo(requestedMib);
        assertThat(d.gpuCount()).isEqualTo(gpus);
        assertThat(d.reserveMib()).isEqualTo(reserve);
        assertThat(d.runAsUser()).isEqualTo(OptionalLong.of(1000));
    }

    static Stream<Arguments> invalid() {
        return Stream.of(
                argumentSet("memory does not split over gpu-count", pod(2, app("main", 7169, 0)),
                        List.of("container main", "7169 MiB", "does not split evenly over 2 GPUs", "multiple of 2")),
                argumentSet("core does not split over gpu-count", pod(2, app("main", 8192, 25)),
                        List.of("container main", "25%", "does not split evenly over 2 GPUs")),
                argumentSet("uneven over three GPUs", pod(3, app("a", 3072, 0), app("b", 1000, 0)),
                        List.of("container b", "over 3 GPUs")),
                argumentSet("core without memory", pod(1, app("main", 0, 30)),
                        List.of("container main", "gpu-core.percentage without aliyun.com/gpu-mem")),
                argumentSet("app containers above 100% core", pod(1, app("a", 1024, 60), app("b", 1024, 50)),
                        List.of("110%", "at most 100%")),
                argumentSet("gpu-count zero", pod(0, app("main", 1024, 0)), List.of("gpu-count must be a positive integer, got 0")),
                argumentSet("sum overflows", pod(1, app("a", Long.MAX_VALUE - 10, 0), app("b", Long.MAX_VALUE - 10, 0)),
                        List.of("more GPU memory than can be counted")));
    }

    @ParameterizedTest
    @MethodSource("invalid")
    void resolve_impossibleRequest_invalidWithReason(PodInfo pod, List<String> fragments) {
        var r = new DemandResolver(512).resolve(pod);
        assertThat(r).isInstanceOf(Resolution.Invalid.class);
        String reason = ((Resolution.Invalid) r).reason();
        for (String f : fragments) assertThat(reason).contains(f);
    }

    @Test
    void resolve_noContainerAsksGpu_noGpu() {
        assertThat(new DemandResolver(512).resolve(pod(1, app("web", 0, 0)))).isInstanceOf(Resolution.NoGpu.class);
    }

    @Test
    void resolve_initListedBeforeApp_demandListsAppFirst() {
        var d = ((Resolution.Resolved) new DemandResolver(512).resolve(pod(1, init("setup", 1024, 0), app("main", 2048, 0)))).demand();
        assertThat(d.containers()).extracting(ContainerShare::name).containsExactly("main", "setup");
    }

    @Test
    void constructor_negativeReserve_throws() {
        assertThatThrownBy(() -> new DemandResolver(-1)).hasMessageContaining(">= 0");
    }

    @Test
    void containerRequest_coreAbove100_throws() {
        assertThatThrownBy(() -> app("main", 1024, 101)).hasMessageContaining("0-100");
    }

    /** Kubernetes' rule for native sidecars (KEP-753): they run beside the app containers; init containers after them add to them. */
    static Stream<Arguments> sidecars() {
        return Stream.of(
                argumentSet("sidecar counted with the app containers", pod(1, sidecar("proxy", 1024, 10), app("main", 2048, 20)),
                        1024 + 512 + 2048 + 512L, 30, 3072L),
                argumentSet("init after a sidecar runs beside it", pod(1, sidecar("proxy", 1024, 0), init("setup", 8192, 0), app("main", 1024, 0)),
                        1024 + 512 + 8192 + 512L, 0, 9216L),
                argumentSet("init before a sidecar does not", pod(1, init("setup", 4096, 0), sidecar("proxy", 1024, 0), app("main", 1024, 0)),
                        4096 + 512L, 0, 4096L),
                argumentSet("two sidecars and an app", pod(1, sidecar("a", 1024, 0), sidecar("b", 1024, 0), app("main", 1024, 0)),
                        3 * (1024 + 512L), 0, 3072L),
                argumentSet("sidecar cores add to the app's", pod(1, sidecar("proxy", 1024, 60), app("main", 1024, 40)),
                        2 * (1024 + 512L), 100, 2048L));
    }

    @ParameterizedTest
    @MethodSource("sidecars")
    void resolve_nativeSidecars_countedWithAppContainers(PodInfo pod, long chargeMib, int core, long requestedMib) {
        GpuDemand d = ((Resolution.Resolved) new DemandResolver(512).resolve(pod)).demand();
        assertThat(d.chargeMib()).as("charge per GPU").isEqualTo(chargeMib);
        assertThat(d.chargeCore()).as("core per GPU").isEqualTo(core);
        assertThat(d.requestedMib()).as("requested").isEqualTo(requestedMib);
        assertThat(d.containers()).filteredOn(ContainerShare::sidecar).allSatisfy(c -> assertThat(c.init()).isTrue());
    }

    @Test
    void resolve_sidecarCoresPast100_invalid() {
        var r = new DemandResolver(512).resolve(pod(1, sidecar("proxy", 1024, 60), app("main", 1024, 60)));
        assertThat(r).isInstanceOf(Resolution.Invalid.class);
        assertThat(((Resolution.Invalid) r).reason()).contains("120%");
    }

    @Test
    void resolve_gpuCountSplitNotWholeGib_invalid() {
        // ACK: N GiB over M GPUs with N/M whole; 15 GiB over 2 is 7.5 GiB each, refused in the request's unit
        var r = new DemandResolver(512, io.mpshare.core.MemoryUnit.GIB).resolve(pod(2, app("main", 15 * 1024, 0)));
        assertThat(r).isInstanceOf(Resolution.Invalid.class);
        assertThat(((Resolution.Invalid) r).reason()).contains("asks 15 GiB", "over 2 GPUs in whole GiB", "such as 14 or 16");
        var ok = new DemandResolver(512, io.mpshare.core.MemoryUnit.GIB).resolve(pod(2, app("main", 16 * 1024, 0)));
        assertThat(((Resolution.Resolved) ok).demand().chargeMib()).isEqualTo(8 * 1024 + 512);
    }

    @Test
    void resolve_gpuCountSplitInMib_wholeMibAccepted() {
        var r = new DemandResolver(512, io.mpshare.core.MemoryUnit.MIB).resolve(pod(2, app("main", 15 * 1024, 0)));
        assertThat(((Resolution.Resolved) r).demand().chargeMib()).isEqualTo(7680 + 512);
    }

    @Test
    void resolve_podContextReserve_overridesDefault() {
        var info = new PodInfo(key("p"), "u", List.of(app("a", 2048, 0), app("b", 1024, 0)), 1, OptionalLong.empty(), OptionalLong.of(1536));
        GpuDemand d = ((Resolution.Resolved) new DemandResolver(1024).resolve(info)).demand();
        assertThat(d.reserveMib()).isEqualTo(1536);
        assertThat(d.chargeMib()).isEqualTo(2048 + 1536 + 1024 + 1536);
    }

    @Test
    void resolve_podContextReserveOutOfBounds_invalid() {
        var info = new PodInfo(key("p"), "u", List.of(app("a", 2048, 0)), 1, OptionalLong.empty(), OptionalLong.of(100_000));
        var r = new DemandResolver(1024).resolve(info);
        assertThat(((Resolution.Invalid) r).reason()).contains(io.mpshare.core.Names.ANN_CONTEXT_RESERVE, "256 to 8192");
    }
}
