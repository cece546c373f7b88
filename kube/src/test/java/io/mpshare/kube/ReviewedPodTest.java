package io.mpshare.kube;

import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.GroupVersionKind;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.admission.v1.AdmissionRequest;
import io.fabric8.kubernetes.api.model.admission.v1.AdmissionRequestBuilder;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class ReviewedPodTest {
    private static final KubernetesSerialization JSON = new KubernetesSerialization();

    private static Pod pod() {
        return new PodBuilder().withNewMetadata().withGenerateName("job-").endMetadata().withNewSpec()
                .withNewSecurityContext().withFsGroup(2000L).endSecurityContext()
                .addToInitContainers(new ContainerBuilder().withName("setup").build())
                .addToContainers(new ContainerBuilder().withName("main").withNewSecurityContext().withReadOnlyRootFilesystem(true).endSecurityContext().build())
                .addToContainers(new ContainerBuilder().withName("side").build())
                .endSpec().build();
    }

    private static AdmissionRequest request(Object object, String kind) {
        return new AdmissionRequestBuilder().withUid("r1").withNamespace("team").withKind(new GroupVersionKind("", kind, "v1"))
                .withObject(object).build();
    }

    @Test
    void of_podObject_viewAndWhichSecurityContextsArePresent() {
        ReviewedPod r = ReviewedPod.of(request(pod(), "Pod"), JSON).orElseThrow();
        assertThat(r.view().namespace()).isEqualTo("team");
        assertThat(r.view().name()).isEqualTo("job-*");
        assertThat(r.podSecurityContext()).as("present though it sets no user field").isTrue();
        assertThat(r.initSecurityContexts()).containsExactly(false);
        assertThat(r.containerSecurityContexts()).containsExactly(true, false);
    }

    @Test
    void of_rawJsonOfAPod_converted() {
        @SuppressWarnings("unchecked")
        Map<String, Object> raw = JSON.convertValue(pod(), Map.class);
        assertThat(ReviewedPod.of(request(raw, "Pod"), JSON)).get().extracting(ReviewedPod::containerSecurityContexts).asList().hasSize(2);
    }

    @Test
    void of_notAPod_empty() {
        assertThat(ReviewedPod.of(request(Map.of("kind", "Deployment"), "Deployment"), JSON)).isEmpty();
        assertThat(ReviewedPod.of(request(null, "Pod"), JSON)).isEmpty();
    }
}
