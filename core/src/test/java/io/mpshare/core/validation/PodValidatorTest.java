package io.mpshare.core.validation;

import io.mpshare.core.Names;
import io.mpshare.core.validation.Violation.Rule;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

class PodValidatorTest {
    private static final long H200_MIB = 143_771;
    private final PodValidator validator = new PodValidator(AdmissionRules.defaults(Set.of("mpshare-system")));

    /** A case: a pod, the largest GPU, and the rules expected to break with a fragment of each message. */
    record Case(String name, PodView pod, OptionalLong largest, List<Rule> rules, List<String> says) {
        @Override public String toString() { return name; }
    }

    static Stream<Case> cases() {
        return Stream.of(
                ok("seed sample: 7 GiB", pod().c(c("mps-sample").mem("7"))),
                ok("memory and core", pod().c(c("main").mem("7").core("30"))),
                ok("request only, no limit", pod().c(c("main").request(Names.RESOURCE_GPU_MEM, "4"))),
                ok("CUDA_VISIBLE_DEVICES is left alone", pod().c(c("main").mem("7").env("CUDA_VISIBLE_DEVICES"))),
                ok("gpu-count 2 divides 8", pod().label(Names.LABEL_GPU_COUNT, "2").c(c("main").mem("8").core("40"))),
                ok("plain pod with NVIDIA_VISIBLE_DEVICES in an allowed namespace", pod().ns("mpshare-system").c(c("daemon").env(Names.ENV_VISIBLE_DEVICES))),
                ok("plain privileged pod is not ours to judge", pod().c(c("tool").privileged())),
                ok("size unknown: no size rule", pod().c(c("main").mem("4000")), OptionalLong.empty()),
                bad("fraction", pod().c(c("main").mem("7.5")), Rule.AMOUNT, "write a whole number"),
                bad("suffix", pod().c(c("main").mem("7Gi")), Rule.AMOUNT, "without fraction or suffix"),
                bad("zero memory", pod().c(c("main").mem("0")), Rule.AMOUNT, "ask for at least 1"),
                bad("negative core", pod().c(c("main").mem("2").core("-5")), Rule.AMOUNT, "ask for at least 1"),
                bad("core above 100", pod().c(c("main").mem("2").core("150")), Rule.CORE_RANGE, "ask between 1 and 100"),
                bad("core without memory", pod().c(c("main").core("30")), Rule.DEMAND, "add a gpu-mem limit"),
                bad("cores add up past 100", pod().c(c("a").mem("1").core("60")).c(c("b").mem("1").core("60")), Rule.DEMAND, "at most 100%"),
                bad("gpu-count not a number", pod().label(Names.LABEL_GPU_COUNT, "two").c(c("main").mem("8")), Rule.GPU_COUNT, "whole number of GPUs from 1 to 64"),
                bad("gpu-count zero", pod().label(Names.LABEL_GPU_COUNT, "0").c(c("main").mem("8")), Rule.GPU_COUNT, "from 1 to 64"),
                bad("gpu-count past the limit", pod().label(Names.LABEL_GPU_COUNT, "128").c(c("main").mem("128")), Rule.GPU_COUNT, "from 1 to 64"),
                bad("gpu-count 2 does not divide 7", pod().label(Names.LABEL_GPU_COUNT, "2").c(c("main").mem("7")), Rule.GPU_COUNT, "such as 6 or 8"),
                bad("gpu-count 3 does not divide core 50", pod().label(Names.LABEL_GPU_COUNT, "3").c(c("main").mem("9").core("50")), Rule.GPU_COUNT, "multiple of 3"),
                bad("more than the largest GPU", pod().c(c("main").mem("141")), Rule.TOO_LARGE, "largest GPU in the cluster has 140.4 GiB"),
                bad("context reserve tips it over", pod().c(c("main").mem("140")), Rule.TOO_LARGE, "0.5 GiB CUDA context reserve"),
                bad("privileged shared-GPU container", pod().c(c("main").mem("7").privileged()), Rule.PRIVILEGED, "remove securityContext.privileged"),
                bad("privileged sidecar of a shared-GPU pod", pod().c(c("main").mem("7")).c(c("side").privileged()), Rule.PRIVILEGED, "container side"),
                bad("user NVIDIA_VISIBLE_DEVICES", pod().c(c("main").mem("7").env(Names.ENV_VISIBLE_DEVICES)), Rule.RESERVED_ENV, "remove it from env"),
                bad("user CUDA_MPS_PINNED_DEVICE_MEM_LIMIT", pod().c(c("main").mem("7").env(Names.ENV_MPS_MEM_LIMIT)), Rule.RESERVED_ENV, "CUDA_MPS_PINNED_DEVICE_MEM_LIMIT"),
                bad("user CUDA_MPS_PIPE_DIRECTORY in an init container", pod().c(c("main").mem("7")).c(c("setup").init().env(Names.ENV_MPS_PIPE)), Rule.RESERVED_ENV, "container setup"),
                bad("shared-GPU pod in an allowed namespace still may not set it", pod().ns("mpshare-system").c(c("main").mem("7").env(Names.ENV_VISIBLE_DEVICES)), Rule.RESERVED_ENV, "NVIDIA_VISIBLE_DEVICES"),
                bad("plain pod with NVIDIA_VISIBLE_DEVICES=all", pod().c(c("rogue").env(Names.ENV_VISIBLE_DEVICES)), Rule.NVIDIA_ENV, "ask for aliyun.com/gpu-mem instead"),
                new Case("several rules at once", pod().c(c("main").mem("0").privileged().env("CUDA_MPS_LOG_DIRECTORY")).view(), OptionalLong.of(H200_MIB),
                        List.of(Rule.AMOUNT, Rule.PRIVILEGED, Rule.RESERVED_ENV), List.of("container main", "container main", "container main")));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void validate_table(Case c) {
        List<Violation> got = validator.validate(c.pod(), c.largest());
        assertThat(got).extracting(Violation::rule).containsExactlyElementsOf(c.rules());
        for (int i = 0; i < c.says().size(); i++) assertThat(got.get(i).message()).contains(c.says().get(i));
    }

    @org.junit.jupiter.api.Test
    void warnings_hostIpcOnSharedGpuPod_only() {
        PodView seedLike = new PodView("default", "mps-sample", Map.of(), "", List.of(c("mps-sample").mem("7").view()), true);
        assertThat(PodValidator.warnings(seedLike)).singleElement().asString().contains("hostIPC is not needed");
        PodView plain = new PodView("default", "tool", Map.of(), "", List.of(c("tool").view()), true);
        assertThat(PodValidator.warnings(plain)).isEmpty();
        assertThat(PodValidator.warnings(pod().c(c("main").mem("7")).view())).isEmpty();
    }

    private static Case ok(String name, PodB p) { return ok(name, p, OptionalLong.of(H200_MIB)); }

    private static Case ok(String name, PodB p, OptionalLong largest) { return new Case(name, p.view(), largest, List.of(), List.of()); }

    private static Case bad(String name, PodB p, Rule rule, String says) {
        return new Case(name, p.view(), OptionalLong.of(H200_MIB), List.of(rule), List.of(says));
    }

    private static PodB pod() { return new PodB(); }

    private static CB c(String name) { return new CB(name); }

    static final class PodB {
        String ns = "team-a";
        final Map<String, String> labels = new HashMap<>();
        final List<ContainerView> cs = new ArrayList<>();
        PodB ns(String n) { ns = n; return this; }
        PodB label(String k, String v) { labels.put(k, v); return this; }
        PodB c(CB c) { cs.add(c.view()); return this; }
        PodView view() { return new PodView(ns, "p", labels, "", cs); }
    }

    static final class CB {
        final String name;
        boolean init, privileged;
        final Map<String, String> limits = new HashMap<>(), requests = new HashMap<>();
        final List<String> env = new ArrayList<>();
        CB(String name) { this.name = name; }
        CB mem(String v) { limits.put(Names.RESOURCE_GPU_MEM, v); return this; }
        CB core(String v) { limits.put(Names.RESOURCE_GPU_CORE, v); return this; }
        CB request(String r, String v) { requests.put(r, v); return this; }
        CB env(String n) { env.add(n); return this; }
        CB privileged() { privileged = true; return this; }
        CB init() { init = true; return this; }
        ContainerView view() { return new ContainerView(name, init, limits, requests, privileged, env); }
    }
}
