package io.mpshare.admission.review;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.admission.v1.AdmissionReview;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.fabric8.zjsonpatch.JsonPatch;
import io.mpshare.admission.Reviews;
import io.mpshare.core.Names;
import io.mpshare.core.validation.AdmissionRules;
import io.mpshare.core.validation.PodValidator;
import io.mpshare.core.validation.Tenancy;
import io.mpshare.kube.PodViews;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

class PodAdmissionTest {
    /** One serializer for the class: fabric8's first read of a review costs seconds, later ones milliseconds. */
    private static final KubernetesSerialization json = new KubernetesSerialization();
    private static final JsonMapper MAPPER = JsonMapper.builder().build();
    private final PodValidator validator = new PodValidator(AdmissionRules.defaults(Set.of("mpshare-system")));
    private final PodAdmission steering = new PodAdmission(validator, () -> OptionalLong.of(143_771), Names.SCHEDULER_NAME, json);
    private final PodAdmission plain = new PodAdmission(validator, OptionalLong::empty, "", json);
    private final PodAdmission defaulting = new PodAdmission(validator, () -> OptionalLong.of(143_771), Names.SCHEDULER_NAME, json,
            Optional.of(new SecurityDefaults(1000, 1000)));

    private AdmissionReview review(String name) { return json.unmarshal(Reviews.json(name), AdmissionReview.class); }

    private static AdmissionReview reviewOf(String text) { return json.unmarshal(text, AdmissionReview.class); }

    /** The seed's sample with its pod edited by {@code from -> to} in the review's JSON. */
    private static AdmissionReview seedWith(String from, String to) {
        String text = Reviews.json("seed-sample");
        assertThat(text).contains(from);
        return reviewOf(text.replace(from, to));
    }

    private static String patch(AdmissionReview out) {
        return new String(Base64.getDecoder().decode(out.getResponse().getPatch()), StandardCharsets.UTF_8);
    }

    @Test
    void validate_seedSampleInTrustedNamespace_admittedWithWarningsThatNameTheRisk() {
        var out = steering.validate(review("seed-sample"), Tenancy.TRUSTED);
        assertThat(out.getResponse().getAllowed()).isTrue();
        assertThat(out.getResponse().getUid()).isEqualTo("705ab4f5-6393-11e8-b7cc-42010a800002");
        assertThat(out.getApiVersion()).isEqualTo("admission.k8s.io/v1");
        assertThat(out.getKind()).isEqualTo("AdmissionReview");
        assertThat(out.getResponse().getWarnings()).hasSize(3).allSatisfy(w -> assertThat(w).startsWith("pod default/mps-sample-*: ")
                .doesNotContain("\n"));
        assertThat(out.getResponse().getWarnings().get(0)).contains("runs as root", "send quit to the node's MPS daemon");
        assertThat(out.getResponse().getWarnings().get(1)).contains("hostPID");
        assertThat(out.getResponse().getWarnings().get(2)).contains("hostIPC is not needed");
    }

    @Test
    void validate_seedSampleInStrictNamespace_refusedSayingWhatToSetAndWhichLabel() {
        var resp = steering.validate(review("seed-sample"), Tenancy.STRICT).getResponse();
        assertThat(resp.getAllowed()).isFalse();
        assertThat(resp.getStatus().getCode()).isEqualTo(403);
        assertThat(resp.getStatus().getMessage()).doesNotContain("\n")
                .startsWith("pod default/mps-sample-* rejected by mpshare: 1) container mps-sample runs as root")
                .contains("set securityContext.runAsUser to a non-zero UID and runAsNonRoot: true")
                .contains("remove hostPID").contains("remove hostIPC")
                .endsWith("kubectl label namespace default mpshare.io/tenancy=trusted)");
        assertThat(steering.validate(review("seed-sample")).getResponse().getAllowed()).as("/validate is strict").isFalse();
    }

    /** Each admission rule of issue 11 through the adapter: the seed's pod with one field changed, in a strict namespace. */
    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
            "root: runAsUser 0 | \"workingDir\": \"/root\" | \"workingDir\": \"/root\", \"securityContext\": {\"runAsUser\": 0} | runAsUser: 0",
            "preset nodeName | \"hostIPC\": true, | \"nodeName\": \"gpu-node-1\", | spec.nodeName is set to gpu-node-1",
            "foreign schedulerName | \"default-scheduler\" | \"volcano\" | schedulerName volcano does not place shared GPUs through mpshare",
            "hostPID | \"hostIPC\": true, | \"securityContext\": {\"runAsUser\": 1000}, | remove hostPID",
            "privileged | \"workingDir\": \"/root\" | \"workingDir\": \"/root\", \"securityContext\": {\"privileged\": true} | remove securityContext.privileged",
            "SYS_PTRACE | \"workingDir\": \"/root\" | \"workingDir\": \"/root\", \"securityContext\": {\"capabilities\": {\"add\": [\"SYS_PTRACE\"]}} | adds capability SYS_PTRACE",
            "hostPath to the pipe directory | \"hostIPC\": true, | \"volumes\": [{\"name\": \"mps\", \"hostPath\": {\"path\": \"/run/mpshare\"}}], | volume mps mounts host path /run/mpshare",
            "the toolkit's device list | \"workingDir\": \"/root\" | \"workingDir\": \"/root\", \"volumeMounts\": [{\"name\": \"d\", \"mountPath\": \"/var/run/nvidia-container-devices/all\"}] | mounts a volume at /var/run/nvidia-container-devices/all",
            "envFrom a ConfigMap | \"workingDir\": \"/root\" | \"workingDir\": \"/root\", \"envFrom\": [{\"configMapRef\": {\"name\": \"cm\"}}] | takes env from ConfigMap cm, whose keys can set NVIDIA_* variables",
            "envFrom a Secret through prefix NV | \"workingDir\": \"/root\" | \"workingDir\": \"/root\", \"envFrom\": [{\"prefix\": \"NV\", \"secretRef\": {\"name\": \"s\"}}] | Secret s with prefix NV, whose keys",
    })
    void validate_ruleBroken_refusedWithItsReason(String rule, String from, String to, String says) {
        var v = new PodValidator(AdmissionRules.defaults(Set.of()).withAcceptedSchedulers(Set.of(Names.SCHEDULER_NAME, PodAdmission.DEFAULT_SCHEDULER)));
        var admission = new PodAdmission(v, () -> OptionalLong.of(143_771), "", json);
        var resp = admission.validate(seedWith(from, to), Tenancy.STRICT).getResponse();
        assertThat(resp.getAllowed()).isFalse();
        assertThat(resp.getStatus().getMessage()).contains(says);
    }

    @Test
    void validate_hostPidHostIpc_refusedInStrict_warnedInTrusted() {
        var nonRoot = seedWith("\"workingDir\": \"/root\"", "\"workingDir\": \"/tmp\", \"securityContext\": {\"runAsUser\": 1000, \"allowPrivilegeEscalation\": false}");
        var strict = steering.validate(nonRoot, Tenancy.STRICT).getResponse();
        assertThat(strict.getAllowed()).isFalse();
        assertThat(strict.getStatus().getMessage()).contains("1) hostPID").contains("2) hostIPC").doesNotContain("runs as root");
        var trusted = steering.validate(nonRoot, Tenancy.TRUSTED).getResponse();
        assertThat(trusted.getAllowed()).isTrue();
        assertThat(trusted.getWarnings()).hasSize(2).anySatisfy(w -> assertThat(w).contains("hostPID"))
                .anySatisfy(w -> assertThat(w).contains("hostIPC"));
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
            "kubectl debug default (no securityContext) | null | false | may regain root through a setuid binary",
            "root debug container | {\"runAsUser\": 0} | false | ephemeral container debugger-x7k2p runs as root",
            "sysadmin profile | {\"privileged\": true} | false | ephemeral container debugger-x7k2p is privileged",
            "restricted profile | {\"allowPrivilegeEscalation\": false, \"runAsNonRoot\": true, \"capabilities\": {\"drop\": [\"ALL\"]}} | true | ''",
    })
    void validate_ephemeralContainers_sameUserAndPrivilegeRules(String name, String security, boolean allowed, String says) {
        var r = reviewOf(Reviews.json("ephemeral-debug").replace("DEBUG_SECURITY", security));
        var resp = steering.validate(r, Tenancy.STRICT).getResponse();
        assertThat(resp.getAllowed()).isEqualTo(allowed);
        if (!allowed) assertThat(resp.getStatus().getMessage()).contains(says).doesNotContain("nodeName");
    }

    @Test
    void validate_ephemeralRootInTrustedNamespace_admitted() {
        var r = reviewOf(Reviews.json("ephemeral-debug").replace("DEBUG_SECURITY", "{\"runAsUser\": 0}"));
        assertThat(steering.validate(r, Tenancy.TRUSTED).getResponse().getAllowed()).isTrue();
    }

    @Test
    void mutate_ephemeralSubresource_notPatched() {
        var r = reviewOf(Reviews.json("ephemeral-debug").replace("DEBUG_SECURITY", "null"));
        assertThat(defaulting.mutate(r, Tenancy.STRICT).getResponse().getPatch()).isNull();
    }

    @Test
    void mutate_seedSample_patchesSchedulerName() {
        var out = steering.mutate(review("seed-sample"));
        assertThat(out.getResponse().getAllowed()).isTrue();
        assertThat(out.getResponse().getPatchType()).isEqualTo("JSONPatch");
        assertThat(patch(out)).isEqualTo("[{\"op\":\"add\",\"path\":\"/spec/schedulerName\",\"value\":\"mpshare-scheduler\"}]");
    }

    @Test
    void mutate_defaultRunAsUserInStrictNamespace_patchedPodRunsAsThatUidAndPasses() throws Exception {
        var nonHost = seedWith("\"hostIPC\": true,\n        \"hostPID\": true,", "");
        String ops = patch(defaulting.mutate(nonHost, Tenancy.STRICT));
        assertThat(ops).contains("/spec/schedulerName", "/spec/securityContext", "\"runAsUser\":1000", "\"runAsGroup\":1000", "\"runAsNonRoot\":true",
                "/spec/containers/0/securityContext", "\"allowPrivilegeEscalation\":false");
        // apply it as kube-apiserver does, then judge the stored pod
        JsonNode podJson = MAPPER.readTree(Reviews.json("seed-sample").replace("\"hostIPC\": true,\n        \"hostPID\": true,", "")).get("request").get("object");
        Pod patched = json.unmarshal(MAPPER.writeValueAsString(JsonPatch.apply(MAPPER.readTree(ops), podJson)), Pod.class);
        assertThat(patched.getSpec().getSecurityContext().getRunAsUser()).as("the UID the extender reads").isEqualTo(1000L);
        assertThat(patched.getSpec().getSchedulerName()).isEqualTo(Names.SCHEDULER_NAME);
        assertThat(validator.validate(PodViews.of(patched, "default"), OptionalLong.of(143_771), Tenancy.STRICT)).isEmpty();
    }

    @Test
    void mutate_defaultRunAsUser_keepsWhatThePodSays() {
        var r = seedWith("\"restartPolicy\": \"Never\",", "\"restartPolicy\": \"Never\", \"securityContext\": {\"runAsUser\": 2000},");
        String ops = patch(defaulting.mutate(r, Tenancy.STRICT));
        assertThat(ops).doesNotContain("\"runAsUser\"").contains("/spec/securityContext/runAsGroup", "/spec/securityContext/runAsNonRoot");
    }

    @Test
    void mutate_defaultRunAsUserInTrustedNamespace_onlySchedulerName() {
        assertThat(patch(defaulting.mutate(review("seed-sample"), Tenancy.TRUSTED)))
                .isEqualTo("[{\"op\":\"add\",\"path\":\"/spec/schedulerName\",\"value\":\"mpshare-scheduler\"}]");
    }

    @Test
    void mutate_withoutSchedulerName_leavesPodAlone() {
        var resp = plain.mutate(review("seed-sample")).getResponse();
        assertThat(resp.getAllowed()).isTrue();
        assertThat(resp.getPatch()).isNull();
    }

    @Test
    void mutate_podWithoutSharedGpu_notPatched() {
        assertThat(defaulting.mutate(review("rogue-nvidia-env")).getResponse().getPatch()).isNull();
    }

    @Test
    void mutate_customScheduler_kept() {
        assertThat(steering.mutate(seedWith("\"default-scheduler\"", "\"volcano\"")).getResponse().getPatch()).isNull();
    }

    @Test
    void validate_rogueNvidiaEnv_deniedWithWhatToChange() {
        var resp = steering.validate(review("rogue-nvidia-env")).getResponse();
        assertThat(resp.getAllowed()).isFalse();
        assertThat(resp.getStatus().getCode()).isEqualTo(403);
        assertThat(resp.getStatus().getMessage())
                .startsWith("pod team-a/rogue rejected by mpshare: ")
                .contains("container train sets NVIDIA_VISIBLE_DEVICES")
                .contains("ask for aliyun.com/gpu-mem instead")
                .doesNotContain("CUDA_VISIBLE_DEVICES");
    }

    @Test
    void validate_badSharedGpuPod_listsEveryRule() {
        String msg = steering.validate(review("bad-shared-gpu"), Tenancy.TRUSTED).getResponse().getStatus().getMessage();
        assertThat(msg).contains("1) ").contains("2) ").contains("3) ").contains("4) ")
                .contains("a GPU has 100%")
                .contains("does not split evenly over the 2 GPUs")
                .contains("remove securityContext.privileged")
                .contains("sets CUDA_MPS_PINNED_DEVICE_MEM_LIMIT");
    }

    /** A pod that asks no GPU, as root, mounting the MPS run folder (it could send quit to the daemon): refused outside the allow-list. */
    @Test
    void validate_plainRootPodWithHostPathToTheRunFolder_refusedUnlessItsNamespaceIsAllowed() {
        var resp = steering.validate(review("plain-root-hostpath"), Tenancy.TRUSTED).getResponse();
        assertThat(resp.getAllowed()).isFalse();
        assertThat(resp.getStatus().getMessage()).contains("volume m mounts host path /run/mpshare", "webhook.allowedNamespaces");
        var allowedHere = new PodAdmission(new PodValidator(AdmissionRules.defaults(Set.of("team-a"))), OptionalLong::empty, "", json);
        assertThat(allowedHere.validate(review("plain-root-hostpath"), Tenancy.STRICT).getResponse().getAllowed()).isTrue();
    }

    /** Updates of a pod's own fields are not this layer's: only annotations change after create, and the chart's policy guards them. */
    @Test
    void validate_podUpdate_leftToTheAnnotationPolicy() {
        var update = reviewOf(Reviews.json("rogue-nvidia-env").replace("\"operation\": \"CREATE\"", "\"operation\": \"UPDATE\""));
        assertThat(steering.validate(update, Tenancy.STRICT).getResponse().getAllowed()).isTrue();
        assertThat(steering.validate(review("rogue-nvidia-env"), Tenancy.STRICT).getResponse().getAllowed()).as("the same pod created").isFalse();
    }

    @Test
    void validate_notAPod_allowed() {
        var resp = steering.validate(review("configmap")).getResponse();
        assertThat(resp.getAllowed()).isTrue();
    }
}
