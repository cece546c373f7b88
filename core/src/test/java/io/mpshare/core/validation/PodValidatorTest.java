package io.mpshare.core.validation;

import io.mpshare.core.Names;
import io.mpshare.core.validation.Violation.Rule;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class PodValidatorTest {
    private static final long H200_MIB = 143_771;
    private final PodValidator validator = new PodValidator(AdmissionRules.defaults(Set.of("mpshare-system"))
            .withAcceptedSchedulers(Set.of(Names.SCHEDULER_NAME)));

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
                bad("context reserve tips it over", pod().c(c("main").mem("140")), Rule.TOO_LARGE, "1 GiB CUDA context reserve"),
                ok("139 GiB and the 1 GiB default reserve fit an H200", pod().c(c("main").mem("139"))),
                bad("privileged shared-GPU container", pod().c(c("main").mem("7").privileged()), Rule.PRIVILEGED, "remove securityContext.privileged"),
                bad("privileged sidecar of a shared-GPU pod", pod().c(c("main").mem("7")).c(c("side").privileged()), Rule.PRIVILEGED, "container side"),
                bad("user NVIDIA_VISIBLE_DEVICES", pod().c(c("main").mem("7").env(Names.ENV_VISIBLE_DEVICES)), Rule.RESERVED_ENV, "remove it from env"),
                bad("user CUDA_MPS_PINNED_DEVICE_MEM_LIMIT", pod().c(c("main").mem("7").env(Names.ENV_MPS_MEM_LIMIT)), Rule.RESERVED_ENV, "CUDA_MPS_PINNED_DEVICE_MEM_LIMIT"),
                bad("user CUDA_MPS_PIPE_DIRECTORY in an init container", pod().c(c("main").mem("7")).c(c("setup").init().env(Names.ENV_MPS_PIPE)), Rule.RESERVED_ENV, "container setup"),
                bad("shared-GPU pod in an allowed namespace still may not set it", pod().ns("mpshare-system").c(c("main").mem("7").env(Names.ENV_VISIBLE_DEVICES)), Rule.RESERVED_ENV, "NVIDIA_VISIBLE_DEVICES"),
                bad("plain pod with NVIDIA_VISIBLE_DEVICES=all", pod().c(c("rogue").env(Names.ENV_VISIBLE_DEVICES)), Rule.NVIDIA_ENV, "ask for aliyun.com/gpu-mem instead"),
                // the container runtime's other doors to GPUs
                bad("plain pod with a CDI annotation", pod().ann("cdi.k8s.io/gpu", "nvidia.com/gpu=all").c(c("rogue")), Rule.RUNTIME_DEVICES, "annotation cdi.k8s.io/gpu"),
                bad("shared-GPU pod with a CDI annotation", pod().ann("cdi.k8s.io/extra", "nvidia.com/gpu=0").c(c("main").mem("7")), Rule.RUNTIME_DEVICES, "CDI-enabled container runtime"),
                bad("plain pod mounting the toolkit's device list", pod().c(c("rogue").mount("/var/run/nvidia-container-devices/all")), Rule.RUNTIME_DEVICES, "where the NVIDIA container toolkit reads"),
                bad("the same through /run and a dot segment", pod().c(c("rogue").mount("/run/./nvidia-container-devices")), Rule.RUNTIME_DEVICES, "container rogue"),
                bad("shared-GPU pod's sidecar mounting it", pod().c(c("main").mem("7")).c(c("side").mount("/var/run/nvidia-container-devices/GPU-1")), Rule.RUNTIME_DEVICES, "container side"),
                ok("a mount above it names no GPU", pod().c(c("main").mem("7").mount("/var/run")).c(c("web").mount("/run/secrets"))),
                ok("another cdi-like annotation key", pod().ann("example.com/cdi.k8s.io", "x").c(c("main").mem("7"))),
                new Case("plain pod in an allowed namespace may", pod().ns("mpshare-system").ann("cdi.k8s.io/gpu", "nvidia.com/gpu=all")
                        .c(c("agent").mount("/var/run/nvidia-container-devices/all")).view(), OptionalLong.of(H200_MIB), List.of(), List.of()),
                bad("gpu-count 2 does not split 15 GiB", pod().label(Names.LABEL_GPU_COUNT, "2").c(c("main").mem("15")), Rule.GPU_COUNT, "such as 14 or 16"),
                ok("native sidecar counted beside the app", pod().c(c("proxy").sidecar().mem("10")).c(c("main").mem("120"))),
                bad("native sidecar tips it over the largest GPU", pod().c(c("proxy").sidecar().mem("20")).c(c("main").mem("120")), Rule.TOO_LARGE, "largest GPU"),
                ok("context reserve annotation in bounds", pod().ann(Names.ANN_CONTEXT_RESERVE, "1536").c(c("main").mem("7"))),
                bad("context reserve annotation not a number", pod().ann(Names.ANN_CONTEXT_RESERVE, "1Gi").c(c("main").mem("7")), Rule.CONTEXT_RESERVE, "from 256 to 8192"),
                bad("context reserve annotation too large", pod().ann(Names.ANN_CONTEXT_RESERVE, "100000").c(c("main").mem("7")), Rule.CONTEXT_RESERVE, "from 256 to 8192"),
                bad("context reserve counted in the size", pod().ann(Names.ANN_CONTEXT_RESERVE, "2048").c(c("main").mem("139")), Rule.TOO_LARGE, "2 GiB CUDA context reserve"),
                // who runs the pod (strict namespace)
                bad("root: runAsUser 0 on the container", pod().c(c("main").mem("7").uid(0L)), Rule.ROOT, "runAsUser: 0"),
                bad("root: runAsUser 0 on the pod", pod().podSecurity(0L, null).c(c("main").mem("7")), Rule.ROOT, "set securityContext.runAsUser to a non-zero UID"),
                bad("root: no runAsUser, runAsNonRoot unset", pod().podSecurity(null, null).c(c("main").mem("7")), Rule.ROOT, "the image's user"),
                ok("runAsNonRoot without runAsUser: kubelet refuses root", pod().podSecurity(null, true).c(c("main").mem("7"))),
                ok("container runAsUser overrides a root pod", pod().podSecurity(0L, null).c(c("main").mem("7").uid(1000L))),
                bad("root sidecar without GPU in a shared-GPU pod", pod().c(c("main").mem("7")).c(c("log").uid(0L)), Rule.ROOT, "container log"),
                bad("root init container", pod().c(c("setup").init().uid(0L)).c(c("main").mem("7")), Rule.ROOT, "init container setup"),
                bad("privilege escalation left on", pod().c(c("main").mem("7").escalation(null)), Rule.PRIVILEGE_ESCALATION, "allowPrivilegeEscalation: false"),
                bad("capability SYS_ADMIN", pod().c(c("main").mem("7").cap("SYS_ADMIN")), Rule.CAPABILITIES, "SYS_ADMIN"),
                bad("capability CAP_SYS_PTRACE", pod().c(c("main").mem("7").cap("CAP_SYS_PTRACE")), Rule.CAPABILITIES, "CAP_SYS_PTRACE"),
                bad("capability setuid", pod().c(c("main").mem("7").cap("setuid")), Rule.CAPABILITIES, "remove it from securityContext.capabilities.add"),
                ok("capability NET_BIND_SERVICE", pod().c(c("main").mem("7").cap("NET_BIND_SERVICE"))),
                bad("procMount Unmasked", pod().c(c("main").mem("7").procMount("Unmasked")), Rule.PROC_MOUNT, "Unmasked"),
                bad("hostPID", pod().hostPid().c(c("main").mem("7")), Rule.HOST_NAMESPACE, "remove hostPID"),
                bad("hostIPC", pod().hostIpc().c(c("main").mem("7")), Rule.HOST_NAMESPACE, "remove hostIPC"),
                bad("hostNetwork", pod().hostNetwork().c(c("main").mem("7")), Rule.HOST_NAMESPACE, "remove hostNetwork"),
                bad("hostPath to the pipe directory", pod().hostPath("mps", "/run/mpshare/blue/pipe").c(c("main").mem("7")), Rule.HOST_PATH, "control sockets"),
                bad("hostPath through /var/run", pod().hostPath("mps", "/var/run/mpshare").c(c("main").mem("7")), Rule.HOST_PATH, "/run/mpshare"),
                bad("hostPath above it", pod().hostPath("run", "/run/").c(c("main").mem("7")), Rule.HOST_PATH, "/run/mpshare"),
                bad("hostPath of the root", pod().hostPath("root", "/").c(c("main").mem("7")), Rule.HOST_PATH, "reaches"),
                bad("hostPath with dot-dot", pod().hostPath("k", "/opt/../var/lib/kubelet/pods").c(c("main").mem("7")), Rule.HOST_PATH, "kubelet"),
                bad("hostPath of /proc", pod().hostPath("p", "/proc").c(c("main").mem("7")), Rule.HOST_PATH, "every process"),
                ok("hostPath of a data folder", pod().hostPath("data", "/data/models").c(c("main").mem("7"))),
                ok("hostPath /runner is not /run", pod().hostPath("data", "/runner/cache").c(c("main").mem("7"))),
                // where and by whom it is placed
                bad("preset nodeName", pod().nodeName("n1").c(c("main").mem("7")), Rule.NODE_NAME, "nodeSelector on kubernetes.io/hostname"),
                bad("foreign schedulerName", pod().scheduler("volcano").c(c("main").mem("7")), Rule.SCHEDULER, "set schedulerName to mpshare-scheduler"),
                bad("default scheduler while mpshare's is required", pod().scheduler("").c(c("main").mem("7")), Rule.SCHEDULER, "default-scheduler"),
                ok("mpshare scheduler", pod().scheduler(Names.SCHEDULER_NAME).c(c("main").mem("7"))),
                ok("plain pod with a preset node is not ours", pod().nodeName("n1").podSecurity(0L, null).hostPid().c(c("web"))),
                // envFrom: the keys are unseen, so only a prefix that parts from every reserved family is safe
                bad("envFrom without a prefix in a shared-GPU pod", pod().c(c("main").mem("7").configMapEnv("cm", "")), Rule.RESERVED_ENV,
                        "takes env from ConfigMap cm, whose keys can set NVIDIA_* variables (a key NVIDIA_VISIBLE_DEVICES)"),
                bad("envFrom prefix NVIDIA_ and a key VISIBLE_DEVICES", pod().c(c("main").mem("7").configMapEnv("cm", "NVIDIA_")), Rule.RESERVED_ENV,
                        "prefix NVIDIA_ and a key VISIBLE_DEVICES make NVIDIA_VISIBLE_DEVICES"),
                bad("envFrom prefix NV, a proper prefix, is as bad as none", pod().c(c("main").mem("7").configMapEnv("cm", "NV")), Rule.RESERVED_ENV,
                        "prefix NV and a key IDIA_VISIBLE_DEVICES make NVIDIA_VISIBLE_DEVICES"),
                bad("envFrom prefix C completes CUDA_MPS_", pod().c(c("main").mem("7").configMapEnv("cm", "C")), Rule.RESERVED_ENV,
                        "a key UDA_MPS_PINNED_DEVICE_MEM_LIMIT make CUDA_MPS_PINNED_DEVICE_MEM_LIMIT"),
                bad("envFrom prefix inside a family", pod().c(c("main").mem("7").configMapEnv("cm", "CUDA_MPS_X")), Rule.RESERVED_ENV,
                        "every name it makes starts with CUDA_"),
                bad("envFrom prefix A completes ALIYUN_", pod().c(c("main").mem("7").configMapEnv("cm", "A")), Rule.RESERVED_ENV, "ALIYUN_*"),
                bad("envFrom of a Secret names secretKeyRef", pod().c(c("main").mem("7").secretEnv("creds", "")), Rule.RESERVED_ENV,
                        "valueFrom.secretKeyRef, or give the source a prefix that begins none of NVIDIA_, CUDA_, ALIYUN_"),
                bad("envFrom in a GPU-less sidecar of a shared-GPU pod", pod().c(c("main").mem("7")).c(c("log").configMapEnv("cm", "")),
                        Rule.RESERVED_ENV, "container log"),
                ok("envFrom with a prefix that parts from every family", pod().c(c("main").mem("7").configMapEnv("cm", "APP_").secretEnv("s", "NX"))),
                ok("envFrom without a prefix in a plain pod: as unseen as its image's env", pod().c(c("web").configMapEnv("cm", ""))),
                bad("envFrom prefix NVIDIA_ in a plain pod", pod().c(c("rogue").configMapEnv("cm", "NVIDIA_")), Rule.NVIDIA_ENV,
                        "completes NVIDIA_* names such as NVIDIA_VISIBLE_DEVICES"),
                bad("envFrom prefix N in a plain pod", pod().c(c("rogue").secretEnv("s", "N")), Rule.NVIDIA_ENV, "prefix N and a key VIDIA_VISIBLE_DEVICES"),
                ok("envFrom prefix CUDA_ in a plain pod takes no GPU", pod().c(c("web").configMapEnv("cm", "CUDA_"))),
                ok("envFrom prefix NVIDIA_ in an allowed namespace", pod().ns("mpshare-system").c(c("agent").configMapEnv("cm", "NVIDIA_"))),
                // host paths of pods that ask no GPU: no tenant pod needs the MPS sockets, the kubelet's folder or /proc
                bad("plain root pod with a hostPath to the pipe directory", pod().podSecurity(0L, null).hostPath("mps", "/run/mpshare").c(c("shell")),
                        Rule.HOST_PATH, "webhook.allowedNamespaces"),
                bad("plain pod with a hostPath of the kubelet's sockets", pod().hostPath("dp", "/var/lib/kubelet/device-plugins").c(c("rogue")),
                        Rule.HOST_PATH, "the kubelet's sockets"),
                bad("plain pod with a hostPath of the root", pod().hostPath("root", "/").c(c("agent")), Rule.HOST_PATH, "/run/mpshare"),
                bad("plain pod with a hostPath of /proc", pod().hostPath("p", "/proc").c(c("agent")), Rule.HOST_PATH, "/proc/<pid>/root"),
                ok("plain pod with a hostPath of a data folder", pod().hostPath("data", "/data").c(c("web"))),
                ok("plain pod in an allowed namespace may mount them", pod().ns("mpshare-system").hostPath("dp", "/var/lib/kubelet/device-plugins").c(c("agent"))),
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

    /** The seed's sample as PodViews builds it: root (the image's user), hostIPC and hostPID, 7 GiB. */
    static PodView seedSample() {
        return pod().ns("default").podSecurity(null, null).hostIpc().hostPid().c(c("mps-sample").mem("7").escalation(null)).view();
    }

    @Test
    void validate_seedSampleInTrustedNamespace_admittedWithWarningsThatNameTheRisk() {
        assertThat(validator.validate(seedSample(), OptionalLong.of(H200_MIB), Tenancy.TRUSTED)).isEmpty();
        List<String> w = PodValidator.warnings(seedSample(), Tenancy.TRUSTED);
        assertThat(w).hasSize(3);
        assertThat(w.get(0)).contains("runs as root", "quit", "stops every shared-GPU pod on the node", Names.LABEL_TENANCY + "=trusted");
        assertThat(w.get(1)).contains("hostPID", "signal and trace");
        assertThat(w.get(2)).contains("hostIPC is not needed", "System V IPC");
    }

    @Test
    void validate_seedSampleInStrictNamespace_refusedSayingWhatToSet() {
        List<Violation> got = validator.validate(seedSample(), OptionalLong.of(H200_MIB), Tenancy.STRICT);
        assertThat(got).extracting(Violation::rule).containsExactly(Rule.ROOT, Rule.HOST_NAMESPACE, Rule.HOST_NAMESPACE);
        assertThat(got.get(0).message()).contains("container mps-sample runs as root", "set securityContext.runAsUser to a non-zero UID");
        assertThat(got).allSatisfy(v -> assertThat(v.rule().trustedAdmits()).isTrue());
    }

    @Test
    void validate_trustedNamespace_stillRefusesPrivilegedCapsHostPathAndPresetNode() {
        PodView p = pod().podSecurity(0L, null).nodeName("n1").hostPath("mps", "/run/mpshare")
                .c(c("main").mem("7").privileged().cap("SYS_PTRACE")).view();
        assertThat(validator.validate(p, OptionalLong.of(H200_MIB), Tenancy.TRUSTED)).extracting(Violation::rule)
                .containsExactly(Rule.NODE_NAME, Rule.PRIVILEGED, Rule.CAPABILITIES, Rule.HOST_PATH);
    }

    @Test
    void warnings_hostIpcOnSharedGpuPod_only() {
        PodView seedLike = new PodView("default", "mps-sample", Map.of(), "", List.of(c("mps-sample").mem("7").uid(1000L).view()), true);
        assertThat(PodValidator.warnings(seedLike)).singleElement().asString().contains("hostIPC is not needed");
        PodView plain = new PodView("default", "tool", Map.of(), "", List.of(c("tool").view()), true);
        assertThat(PodValidator.warnings(plain)).isEmpty();
        assertThat(PodValidator.warnings(pod().c(c("main").mem("7")).view())).isEmpty();
    }

    @Test
    void warnings_nonRootWithoutUid_asksForRunAsUser() {
        PodView p = pod().podSecurity(null, true).c(c("main").mem("7")).view();
        assertThat(PodValidator.warnings(p, Tenancy.STRICT)).singleElement().asString().contains("set securityContext.runAsUser");
    }

    /** Ephemeral containers added through pods/ephemeralcontainers (kubectl debug) meet the same user and privilege rules. */
    static Stream<Case> ephemeral() {
        return Stream.of(
                new Case("restricted debug container admitted", pod().c(c("main").mem("7")).c(c("debugger").ephemeral()).view(),
                        OptionalLong.empty(), List.of(), List.of()),
                new Case("root debug container refused", pod().c(c("main").mem("7")).c(c("debugger").ephemeral().uid(0L)).view(),
                        OptionalLong.empty(), List.of(Rule.ROOT), List.of("ephemeral container debugger runs as root")),
                new Case("default kubectl debug: escalation left on", pod().c(c("main").mem("7")).c(c("debugger").ephemeral().escalation(null)).view(),
                        OptionalLong.empty(), List.of(Rule.PRIVILEGE_ESCALATION), List.of("kubectl debug --profile=restricted")),
                new Case("sysadmin profile: privileged", pod().c(c("main").mem("7")).c(c("debugger").ephemeral().privileged()).view(),
                        OptionalLong.empty(), List.of(Rule.PRIVILEGED), List.of("ephemeral container debugger is privileged")),
                new Case("debug container sets CUDA_MPS_PIPE_DIRECTORY", pod().c(c("main").mem("7")).c(c("debugger").ephemeral().env(Names.ENV_MPS_PIPE)).view(),
                        OptionalLong.empty(), List.of(Rule.RESERVED_ENV), List.of("CUDA_MPS_PIPE_DIRECTORY")),
                new Case("debug container takes every GPU of a plain pod", pod().c(c("web")).c(c("debugger").ephemeral().env(Names.ENV_VISIBLE_DEVICES)).view(),
                        OptionalLong.empty(), List.of(Rule.NVIDIA_ENV), List.of("ephemeral container debugger")),
                new Case("debug container mounts the toolkit's device list", pod().c(c("web")).c(c("debugger").ephemeral().mount("/var/run/nvidia-container-devices/all")).view(),
                        OptionalLong.empty(), List.of(Rule.RUNTIME_DEVICES), List.of("ephemeral container debugger mounts")),
                new Case("debug container takes env from a ConfigMap without a prefix", pod().c(c("main").mem("7"))
                        .c(c("debugger").ephemeral().configMapEnv("cm", "")).view(), OptionalLong.empty(), List.of(Rule.RESERVED_ENV),
                        List.of("ephemeral container debugger takes env from ConfigMap cm")),
                new Case("debug container of a plain pod with an NVIDIA_ prefix", pod().c(c("web")).c(c("debugger").ephemeral().configMapEnv("cm", "NVIDIA_"))
                        .view(), OptionalLong.empty(), List.of(Rule.NVIDIA_ENV), List.of("ephemeral container debugger")),
                new Case("only the ephemeral ones are judged (the pod is bound by now)", pod().nodeName("n1").c(c("main").mem("7").uid(0L))
                        .c(c("debugger").ephemeral()).view(), OptionalLong.empty(), List.of(), List.of()));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("ephemeral")
    void validateEphemeral_table(Case c) {
        List<Violation> got = validator.validateEphemeral(c.pod(), Tenancy.STRICT);
        assertThat(got).extracting(Violation::rule).containsExactlyElementsOf(c.rules());
        for (int i = 0; i < c.says().size(); i++) assertThat(got.get(i).message()).contains(c.says().get(i));
    }

    @Test
    void validateEphemeral_rootDebugContainerInTrustedNamespace_admitted() {
        PodView p = pod().podSecurity(null, null).c(c("main").mem("7")).c(c("debugger").ephemeral().escalation(null)).view();
        assertThat(validator.validateEphemeral(p, Tenancy.TRUSTED)).isEmpty();
        assertThat(validator.validateEphemeral(p, Tenancy.STRICT)).extracting(Violation::rule).containsExactly(Rule.ROOT);
    }

    @Test
    void validate_kubeletRootFromTheFlag_protectedInEveryJudgedPod() {
        PodValidator k0s = new PodValidator(AdmissionRules.defaults(Set.of("mpshare-system")).withKubeletRootDirs(List.of("/var/lib/k0s/kubelet/")));
        PodView gpu = pod().hostPath("k", "/var/lib/k0s/kubelet/pod-resources").c(c("main").mem("7")).view();
        PodView plain = pod().hostPath("k", "/var/lib/k0s").c(c("web")).view();
        assertThat(k0s.validate(gpu, OptionalLong.empty())).singleElement().satisfies(v -> assertThat(v.message()).contains("reaches /var/lib/k0s/kubelet"));
        assertThat(k0s.validate(plain, OptionalLong.empty())).extracting(Violation::rule).containsExactly(Rule.HOST_PATH);
        assertThat(k0s.validate(pod().hostPath("k", "/var/lib/kubelet").c(c("web")).view(), OptionalLong.empty())).as("not this cluster's kubelet").isEmpty();
        assertThat(validator.validate(plain, OptionalLong.empty())).as("the default protects /var/lib/kubelet only").isEmpty();
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"var/lib/kubelet", "/", "//.", ""})
    void admissionRules_kubeletRootNotAFolderBelowRoot_refusedSayingWhatToGive(String dir) {
        assertThatThrownBy(() -> AdmissionRules.defaults(Set.of()).withKubeletRootDirs(List.of(dir)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("--root-dir, such as /var/lib/kubelet");
    }

    @Test
    void reservedEnv_spellable_prefixThatBeginsOrEntersAFamily() {
        List<String> families = Names.ENV_GPU_FAMILIES;
        assertThat(ReservedEnv.spellable("", families)).contains("NVIDIA_");
        assertThat(ReservedEnv.spellable("NV", families)).contains("NVIDIA_");
        assertThat(ReservedEnv.spellable("NVIDIA_", families)).contains("NVIDIA_");
        assertThat(ReservedEnv.spellable("NVIDIA_VISIBLE_DEVICES_", families)).contains("NVIDIA_");
        assertThat(ReservedEnv.spellable("CUD", families)).contains("CUDA_");
        assertThat(ReservedEnv.spellable("ALIYUN_COM_", families)).contains("ALIYUN_");
        assertThat(ReservedEnv.spellable("APP_", families)).isEmpty();
        assertThat(ReservedEnv.spellable("NVX", families)).isEmpty();
        assertThat(ReservedEnv.spellable("CUDX_", families)).isEmpty();
        assertThat(ReservedEnv.spellable("nvidia_", families)).as("names are case-sensitive").isEmpty();
    }

    @Test
    void normalize_pathsAsTheHostResolvesThem() {
        assertThat(TenancyRules.normalize("//var/run/./mpshare/")).isEqualTo("/run/mpshare");
        assertThat(TenancyRules.normalize("/a/b/../../var/lib/kubelet")).isEqualTo("/var/lib/kubelet");
        assertThat(TenancyRules.reaches("/var", "/var/lib/kubelet")).isTrue();
        assertThat(TenancyRules.reaches("/var/lib/kubeletx", "/var/lib/kubelet")).isFalse();
    }

    private static Case ok(String name, PodB p) { return ok(name, p, OptionalLong.of(H200_MIB)); }

    private static Case ok(String name, PodB p, OptionalLong largest) { return new Case(name, p.view(), largest, List.of(), List.of()); }

    private static Case bad(String name, PodB p, Rule rule, String says) {
        return new Case(name, p.view(), OptionalLong.of(H200_MIB), List.of(rule), List.of(says));
    }

    private static PodB pod() { return new PodB(); }

    private static CB c(String name) { return new CB(name); }

    static final class PodB {
        String ns = "team-a", scheduler = Names.SCHEDULER_NAME, nodeName = "";
        final Map<String, String> labels = new HashMap<>(), annotations = new HashMap<>(), hostPaths = new HashMap<>();
        final List<ContainerView> cs = new ArrayList<>();
        boolean hostIpc, hostPid, hostNetwork;
        SecurityView security = SecurityView.pod(1000L, 1000L, true);
        PodB ns(String n) { ns = n; return this; }
        PodB label(String k, String v) { labels.put(k, v); return this; }
        PodB ann(String k, String v) { annotations.put(k, v); return this; }
        PodB scheduler(String s) { scheduler = s; return this; }
        PodB nodeName(String n) { nodeName = n; return this; }
        PodB hostIpc() { hostIpc = true; return this; }
        PodB hostPid() { hostPid = true; return this; }
        PodB hostNetwork() { hostNetwork = true; return this; }
        PodB hostPath(String volume, String path) { hostPaths.put(volume, path); return this; }
        PodB podSecurity(Long uid, Boolean nonRoot) { security = SecurityView.pod(uid, null, nonRoot); return this; }
        PodB c(CB c) { cs.add(c.view()); return this; }
        PodView view() {
            return new PodView(ns, "p", labels, scheduler, cs, hostIpc, new PodView.Host(hostPid, hostNetwork, nodeName, hostPaths), security, annotations);
        }
    }

    static final class CB {
        final String name;
        boolean init, privileged, sidecar, ephemeral;
        Long uid;
        Boolean escalation = false;
        String procMount;
        final Map<String, String> limits = new HashMap<>(), requests = new HashMap<>();
        final List<String> env = new ArrayList<>(), caps = new ArrayList<>(), mounts = new ArrayList<>();
        final List<EnvSource> envFrom = new ArrayList<>();
        CB(String name) { this.name = name; }
        CB configMapEnv(String cm, String prefix) { envFrom.add(new EnvSource(EnvSource.CONFIG_MAP, cm, prefix)); return this; }
        CB secretEnv(String secret, String prefix) { envFrom.add(new EnvSource(EnvSource.SECRET, secret, prefix)); return this; }
        CB mem(String v) { limits.put(Names.RESOURCE_GPU_MEM, v); return this; }
        CB core(String v) { limits.put(Names.RESOURCE_GPU_CORE, v); return this; }
        CB request(String r, String v) { requests.put(r, v); return this; }
        CB env(String n) { env.add(n); return this; }
        CB privileged() { privileged = true; return this; }
        CB init() { init = true; return this; }
        CB sidecar() { init = true; sidecar = true; return this; }
        CB ephemeral() { ephemeral = true; return this; }
        CB uid(Long u) { uid = u; return this; }
        CB escalation(Boolean b) { escalation = b; return this; }
        CB cap(String c) { caps.add(c); return this; }
        CB procMount(String p) { procMount = p; return this; }
        CB mount(String path) { mounts.add(path); return this; }
        ContainerView view() {
            return new ContainerView(name, init, limits, requests, privileged, env, sidecar, ephemeral,
                    new SecurityView(uid, null, null, escalation, caps, procMount), mounts, envFrom);
        }
    }
}
