package io.mpshare.admission.review;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.admission.v1.AdmissionReview;
import io.fabric8.kubernetes.api.model.admission.v1.AdmissionReviewBuilder;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.fabric8.zjsonpatch.JsonPatch;
import io.mpshare.admission.cluster.ClientUidLookup;
import io.mpshare.core.Names;
import io.mpshare.core.validation.AdmissionRules;
import io.mpshare.core.validation.ClientUid;
import io.mpshare.core.validation.PodValidator;
import io.mpshare.core.validation.Tenancy;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/** The client-UID binding through {@link PodAdmission}, with a lookup that holds what the namespace informer would. */
class ClientUidAdmissionTest {
    private static final KubernetesSerialization JSON = new KubernetesSerialization();
    private static final JsonMapper MAPPER = JsonMapper.builder().build();
    private final FakeLookup lookup = new FakeLookup().bind("team-a", 1000).bind("team-b", 2000);
    private final PodAdmission admission = new PodAdmission(new PodValidator(AdmissionRules.defaults(Set.of("mpshare-system"))),
            () -> OptionalLong.of(143_771), Names.SCHEDULER_NAME, JSON, Optional.of(new SecurityDefaults(4242, 4242)), Optional.of(lookup));

    /** The namespaces' bindings as a map: what {@code NamespaceClientUids} keeps from the informer. */
    static final class FakeLookup implements ClientUidLookup {
        final Map<String, ClientUid> byNs = new HashMap<>();
        FakeLookup bind(String ns, long uid) { byNs.put(ns, new ClientUid.Bound(uid)); return this; }
        FakeLookup invalid(String ns, String text) { byNs.put(ns, new ClientUid.Invalid(text)); return this; }
        @Override public ClientUid of(String namespace) { return byNs.getOrDefault(namespace, ClientUid.UNBOUND); }
        @Override public boolean anyBound() { return byNs.values().stream().anyMatch(u -> u instanceof ClientUid.Bound); }
        @Override public Set<String> claimants(long uid) {
            Set<String> s = new HashSet<>();
            byNs.forEach((ns, u) -> { if (u instanceof ClientUid.Bound(long b) && b == uid) s.add(ns); });
            return s;
        }
    }

    /** A shared-GPU pod in {@code ns}, non-root, no privilege escalation; pod-level runAsUser {@code uid} (null: unset). */
    static Pod gpuPod(String ns, Long uid) {
        return new PodBuilder().withNewMetadata().withName("p").withNamespace(ns).endMetadata()
                .withNewSpec().withSchedulerName(Names.SCHEDULER_NAME)
                .withNewSecurityContext().withRunAsUser(uid).withRunAsNonRoot(true).endSecurityContext()
                .addNewContainer().withName("main").withImage("cuda")
                .withNewResources().addToLimits(Names.RESOURCE_GPU_MEM, new Quantity("4")).endResources()
                .withNewSecurityContext().withAllowPrivilegeEscalation(false).endSecurityContext()
                .endContainer().endSpec().build();
    }

    static AdmissionReview create(Pod pod) {
        return new AdmissionReviewBuilder().withApiVersion("admission.k8s.io/v1").withKind("AdmissionReview").withNewRequest()
                .withUid("u1").withNewKind("", "Pod", "v1").withNamespace(pod.getMetadata().getNamespace()).withOperation("CREATE")
                .withObject(pod).endRequest().build();
    }

    private static Pod patched(Pod pod, AdmissionReview out) {
        String patch = new String(Base64.getDecoder().decode(out.getResponse().getPatch()), StandardCharsets.UTF_8);
        JsonNode applied = JsonPatch.apply(MAPPER.readTree(patch), MAPPER.readTree(JSON.asJson(pod)));
        return JSON.unmarshal(applied.toString(), Pod.class);
    }

    @Test
    void mutate_boundNamespaceWithoutRunAsUser_setsTheNamespacesUidNotTheChartDefault() {
        Pod pod = gpuPod("team-a", null);
        Pod after = patched(pod, admission.mutate(create(pod), Tenancy.STRICT));
        assertThat(after.getSpec().getSecurityContext().getRunAsUser()).isEqualTo(1000L);
        assertThat(after.getSpec().getSecurityContext().getRunAsGroup()).isEqualTo(1000L);
        var resp = admission.validate(create(after), Tenancy.STRICT).getResponse();
        assertThat(resp.getAllowed()).isTrue();
        assertThat(resp.getWarnings()).isNullOrEmpty();
    }

    @Test
    void mutate_boundNamespaceWithAnotherUid_leavesItForTheValidatorToRefuse() {
        Pod pod = gpuPod("team-a", 3000L);
        var out = admission.mutate(create(pod), Tenancy.STRICT).getResponse();
        assertThat(out.getPatch() == null ? "" : new String(Base64.getDecoder().decode(out.getPatch()), StandardCharsets.UTF_8))
                .doesNotContain("runAsUser");
    }

    @Test
    void mutate_unboundNamespace_usesTheChartDefault() {
        Pod pod = gpuPod("team-c", null);
        Pod after = patched(pod, admission.mutate(create(pod), Tenancy.STRICT));
        assertThat(after.getSpec().getSecurityContext().getRunAsUser()).isEqualTo(4242L);
    }

    @Test
    void validate_boundNamespaceAnotherUid_refusedNamingTheAnnotationAndTheUid() {
        var resp = admission.validate(create(gpuPod("team-a", 3000L)), Tenancy.STRICT).getResponse();
        assertThat(resp.getAllowed()).isFalse();
        assertThat(resp.getStatus().getMessage()).doesNotContain("\n")
                .contains("the pod runs as UID 3000, but namespace team-a runs its shared-GPU pods as UID 1000 (annotation mpshare.io/client-uid)")
                .contains("set securityContext.runAsUser: 1000")
                .doesNotContain(Names.LABEL_TENANCY);
    }

    @Test
    void validate_unboundNamespaceClaimedUid_refusedNamingTheOwner() {
        var resp = admission.validate(create(gpuPod("team-c", 2000L)), Tenancy.STRICT).getResponse();
        assertThat(resp.getAllowed()).isFalse();
        assertThat(resp.getStatus().getMessage()).contains("UID 2000 belongs to namespace team-b");
    }

    @Test
    void validate_unboundNamespaceFreeUid_admittedWithTheTerminateWarning() {
        var resp = admission.validate(create(gpuPod("team-c", 5000L)), Tenancy.STRICT).getResponse();
        assertThat(resp.getAllowed()).isTrue();
        assertThat(resp.getWarnings()).anySatisfy(w -> assertThat(w)
                .contains("namespace team-c has no mpshare.io/client-uid", "can terminate this pod's GPU clients"));
    }

    @Test
    void validate_unboundNamespaceImagesUser_refusedWhileSomeUidIsBound() {
        var resp = admission.validate(create(gpuPod("team-c", null)), Tenancy.STRICT).getResponse();
        assertThat(resp.getAllowed()).isFalse();
        assertThat(resp.getStatus().getMessage()).contains("sets no runAsUser, so it runs as its image's user");
    }

    @Test
    void validate_invalidAnnotation_refusesSharedGpuPods() {
        lookup.invalid("team-d", "alice");
        var resp = admission.validate(create(gpuPod("team-d", 5000L)), Tenancy.STRICT).getResponse();
        assertThat(resp.getAllowed()).isFalse();
        assertThat(resp.getStatus().getMessage()).contains("mpshare.io/client-uid=\"alice\", which is not a UID");
    }

    @Test
    void validate_trustedNamespace_claimedUidAdmittedWithoutTheTerminateWarning() {
        var resp = admission.validate(create(gpuPod("team-c", 2000L)), Tenancy.TRUSTED).getResponse();
        assertThat(resp.getAllowed()).isTrue();
        assertThat(resp.getWarnings() == null ? java.util.List.<String>of() : resp.getWarnings()).noneSatisfy(w -> assertThat(w).contains("client-uid"));
    }

    @Test
    void validate_withoutLookup_noBindingRulesAndNoWarning() {
        var plain = new PodAdmission(new PodValidator(AdmissionRules.defaults(Set.of())), () -> OptionalLong.of(143_771), Names.SCHEDULER_NAME, JSON);
        var resp = plain.validate(create(gpuPod("team-c", 2000L)), Tenancy.STRICT).getResponse();
        assertThat(resp.getAllowed()).isTrue();
        assertThat(resp.getWarnings()).isNullOrEmpty();
    }
}
