package io.mpshare.admission.tls;

import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhookConfiguration;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhookConfigurationBuilder;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingWebhookConfiguration;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingWebhookConfigurationBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.Base64;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** Self-signed mode against the API test server: one Secret shared by replicas, the caBundle patched into our webhooks only. */
@EnableKubernetesMockClient(crud = true)
class TlsBootstrapIT {
    static final String NS = "mpshare-system";
    static final List<String> DNS = SelfSigned.serviceDnsNames("mpshare-webhook", NS);
    KubernetesClient client;

    private SecretCertificateStore store(Instant now) {
        return new SecretCertificateStore(client, NS, "mpshare-webhook-tls", DNS, InstantSource.fixed(now),
                Duration.ofDays(365), Duration.ofDays(30));
    }

    @Test
    void obtain_secondReplica_servesTheFirstOnesCertificate() {
        Instant now = Instant.parse("2026-11-30T00:00:00Z");
        ServingCertificate first = store(now).obtain();
        ServingCertificate second = store(now.plusSeconds(60)).obtain();
        assertThat(second.leaf()).isEqualTo(first.leaf());
        assertThat(second.caPem()).isEqualTo(first.caPem());
        assertThat(first.covers(DNS)).isTrue();
        var secret = client.secrets().inNamespace(NS).withName("mpshare-webhook-tls").get();
        assertThat(secret.getType()).isEqualTo("kubernetes.io/tls");
        assertThat(secret.getData()).containsKeys("tls.crt", "tls.key", "ca.crt");
    }

    @Test
    void obtain_nearExpiry_renews() {
        Instant now = Instant.parse("2026-11-30T00:00:00Z");
        ServingCertificate first = store(now).obtain();
        ServingCertificate later = store(now.plus(Duration.ofDays(340))).obtain();
        assertThat(later.leaf()).isNotEqualTo(first.leaf());
        assertThat(store(now.plus(Duration.ofDays(341))).obtain().leaf()).isEqualTo(later.leaf());
    }

    @Test
    void obtain_secretForAnotherService_replaced() {
        Instant now = Instant.parse("2026-11-30T00:00:00Z");
        new SecretCertificateStore(client, NS, "mpshare-webhook-tls", List.of("old-name.mpshare-system.svc"), InstantSource.fixed(now),
                Duration.ofDays(365), Duration.ofDays(30)).obtain();
        assertThat(store(now).obtain().covers(DNS)).isTrue();
    }

    @Test
    void patch_setsCaBundleOfOurWebhooksOnly_andIsIdempotent() {
        client.admissionRegistration().v1().validatingWebhookConfigurations().resource(new ValidatingWebhookConfigurationBuilder()
                .withNewMetadata().withName("mpshare").endMetadata()
                .addNewWebhook().withName("pods.validate.mpshare.io").withNewClientConfig().withNewService()
                .withName("mpshare-webhook").withNamespace(NS).withPath("/validate").endService().endClientConfig()
                .withSideEffects("None").withAdmissionReviewVersions("v1").endWebhook()
                .addNewWebhook().withName("someone.else.io").withNewClientConfig().withNewService()
                .withName("other").withNamespace("other").endService().endClientConfig()
                .withSideEffects("None").withAdmissionReviewVersions("v1").endWebhook()
                .build()).create();
        client.admissionRegistration().v1().mutatingWebhookConfigurations().resource(new MutatingWebhookConfigurationBuilder()
                .withNewMetadata().withName("mpshare").endMetadata()
                .addNewWebhook().withName("pods.mutate.mpshare.io").withNewClientConfig().withNewService()
                .withName("mpshare-webhook").withNamespace(NS).withPath("/mutate").endService().endClientConfig()
                .withSideEffects("None").withAdmissionReviewVersions("v1").endWebhook()
                .build()).create();
        ServingCertificate cert = store(Instant.now()).obtain();
        var patcher = new CaBundlePatcher(client, List.of("mpshare"), List.of("mpshare", "missing"), "mpshare-webhook", NS);

        assertThat(patcher.patch(cert.caPem())).isEqualTo(2);
        assertThat(patcher.patch(cert.caPem())).isZero();

        String bundle = Base64.getEncoder().encodeToString(cert.caPem().getBytes(StandardCharsets.US_ASCII));
        ValidatingWebhookConfiguration v = client.admissionRegistration().v1().validatingWebhookConfigurations().withName("mpshare").get();
        assertThat(v.getWebhooks().get(0).getClientConfig().getCaBundle()).isEqualTo(bundle);
        assertThat(v.getWebhooks().get(1).getClientConfig().getCaBundle()).isNull();
        MutatingWebhookConfiguration m = client.admissionRegistration().v1().mutatingWebhookConfigurations().withName("mpshare").get();
        assertThat(m.getWebhooks().get(0).getClientConfig().getCaBundle()).isEqualTo(bundle);
    }
}
