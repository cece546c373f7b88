package io.mpshare.admission.review;

import io.fabric8.kubernetes.api.model.admission.v1.AdmissionReview;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.mpshare.admission.Reviews;
import io.mpshare.core.Names;
import io.mpshare.core.validation.AdmissionRules;
import io.mpshare.core.validation.PodValidator;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.OptionalLong;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

class PodAdmissionTest {
    /** One serializer for the class: fabric8's first read of a review costs seconds, later ones milliseconds. */
    private static final KubernetesSerialization json = new KubernetesSerialization();
    private final PodValidator validator = new PodValidator(AdmissionRules.defaults(Set.of("mpshare-system")));
    private final PodAdmission steering = new PodAdmission(validator, () -> OptionalLong.of(143_771), Names.SCHEDULER_NAME, json);
    private final PodAdmission plain = new PodAdmission(validator, OptionalLong::empty, "", json);

    private AdmissionReview review(String name) { return json.unmarshal(Reviews.json(name), AdmissionReview.class); }

    @Test
    void validate_seedSample_allowedWithItsUid() {
        var out = steering.validate(review("seed-sample"));
        assertThat(out.getResponse().getAllowed()).isTrue();
        assertThat(out.getResponse().getUid()).isEqualTo("705ab4f5-6393-11e8-b7cc-42010a800002");
        assertThat(out.getApiVersion()).isEqualTo("admission.k8s.io/v1");
        assertThat(out.getKind()).isEqualTo("AdmissionReview");
        assertThat(out.getResponse().getWarnings()).singleElement().asString()
                .startsWith("pod default/mps-sample-*: ").contains("hostIPC is not needed");
    }

    @Test
    void mutate_seedSample_patchesSchedulerName() {
        var resp = steering.mutate(review("seed-sample")).getResponse();
        assertThat(resp.getAllowed()).isTrue();
        assertThat(resp.getPatchType()).isEqualTo("JSONPatch");
        assertThat(new String(Base64.getDecoder().decode(resp.getPatch()), StandardCharsets.UTF_8))
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
        var resp = steering.mutate(review("rogue-nvidia-env")).getResponse();
        assertThat(resp.getPatch()).isNull();
    }

    @Test
    void mutate_customScheduler_kept() {
        var r = json.unmarshal(Reviews.json("seed-sample").replace("\"default-scheduler\"", "\"volcano\""), AdmissionReview.class);
        assertThat(steering.mutate(r).getResponse().getPatch()).isNull();
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
        String msg = steering.validate(review("bad-shared-gpu")).getResponse().getStatus().getMessage();
        assertThat(msg).contains("1) ").contains("2) ").contains("3) ").contains("4) ")
                .contains("a GPU has 100%")
                .contains("does not split evenly over the 2 GPUs")
                .contains("remove securityContext.privileged")
                .contains("sets CUDA_MPS_PINNED_DEVICE_MEM_LIMIT");
    }

    @Test
    void validate_notAPod_allowed() {
        var resp = steering.validate(review("configmap")).getResponse();
        assertThat(resp.getAllowed()).isTrue();
    }
}
