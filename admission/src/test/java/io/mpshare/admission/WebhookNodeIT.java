package io.mpshare.admission;

import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingWebhookConfigurationBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.mpshare.admission.tls.Pem;
import io.mpshare.admission.tls.SelfSigned;
import io.mpshare.admission.tls.ServingCertificate;
import io.mpshare.core.MemoryUnit;
import io.mpshare.core.Names;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.Base64;
import java.util.List;
import java.util.Optional;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * {@code mpshare webhook}'s root against the API test server: a mounted certificate served over real HTTPS and its CA
 * patched into the configuration, a rotation of the mounted files picked up by the reconcile loop (new caBundle, new
 * certificate served), the API server not asked for when nothing needs it, and nothing served after close.
 */
@EnableKubernetesMockClient(crud = true)
class WebhookNodeIT {
    static final String NS = "mpshare-system", SVC = "mpshare-webhook";
    KubernetesClient client;
    @TempDir Path dir;

    WebhookNode.Config config(List<String> validating, long largestGpuMib, boolean clientUids) {
        return new WebhookNode.Config(0, Optional.of(new WebhookNode.MountedFiles(dir.resolve("tls.crt"), dir.resolve("tls.key"), null)),
                "unused", SVC, NS, List.of(), validating, Set.of(), "", largestGpuMib, MemoryUnit.GIB, Names.DEFAULT_CONTEXT_RESERVE_MIB,
                Set.of(), Optional.empty(), clientUids, List.of(Names.KUBELET_DIR), Duration.ofSeconds(1));
    }

    /** A fresh CA and leaf for localhost in the mounted files (chain: leaf, then CA); returns the CA in PEM. */
    String mount() throws IOException {
        ServingCertificate c = SelfSigned.create(List.of("localhost"), Instant.now(), Duration.ofDays(1));
        Files.writeString(dir.resolve("tls.key"), Pem.privateKey(c.key()));
        Files.writeString(dir.resolve("tls.crt"), Pem.certificates(List.of(c.leaf(), c.ca())));
        return c.caPem();
    }

    String caBundle() {
        String b = client.admissionRegistration().v1().validatingWebhookConfigurations().withName(SVC).get()
                .getWebhooks().getFirst().getClientConfig().getCaBundle();
        return b == null ? null : new String(Base64.getDecoder().decode(b), StandardCharsets.US_ASCII);
    }

    @Test void start_mountedCertificate_servedAndPatched_rotationPickedUp_closedStopsServing() throws Exception {
        client.admissionRegistration().v1().validatingWebhookConfigurations().resource(new ValidatingWebhookConfigurationBuilder()
                .withNewMetadata().withName(SVC).endMetadata()
                .addNewWebhook().withName("pods.validate.mpshare.io").withNewClientConfig().withNewService()
                .withName(SVC).withNamespace(NS).withPath("/validate").endService().endClientConfig()
                .withSideEffects("None").withAdmissionReviewVersions("v1").endWebhook().build()).create();
        String firstCa = mount();

        WebhookNode node = WebhookNode.start(config(List.of(SVC), 0, true), () -> client, InstantSource.system());
        int port;
        try {
            port = node.port();
            assertThat(caBundle()).isEqualTo(firstCa);
            HttpResponse<String> r = review(firstCa, port);
            assertThat(r.statusCode()).isEqualTo(200);
            assertThat(r.body()).contains("\"allowed\":false").contains("NVIDIA_VISIBLE_DEVICES");

            String secondCa = mount();
            await().atMost(Duration.ofSeconds(20)).until(() -> secondCa.equals(caBundle()));
            assertThat(review(secondCa, port).statusCode()).isEqualTo(200);
        } finally {
            node.close();
        }
        assertThatThrownBy(() -> review(firstCa, port)).isInstanceOf(ConnectException.class);
    }

    @Test void start_nothingNeedsTheApiServer_neverConnects() throws Exception {
        String ca = mount();
        try (WebhookNode node = WebhookNode.start(config(List.of(), 81_559, false),
                () -> { throw new AssertionError("the API server was asked for"); }, InstantSource.system())) {
            assertThat(review(ca, node.port()).statusCode()).isEqualTo(200);
        }
    }

    @Test void config_needsApi_whenAnythingReadsOrWritesTheCluster() {
        assertThat(config(List.of(), 81_559, false).needsApi()).isFalse();
        assertThat(config(List.of(SVC), 81_559, false).needsApi()).isTrue();
        assertThat(config(List.of(), 0, false).needsApi()).isTrue();
        assertThat(config(List.of(), 81_559, true).needsApi()).isTrue();
    }

    private static HttpResponse<String> review(String caPem, int port) throws Exception {
        try (HttpClient apiServer = HttpClient.newBuilder().sslContext(SelfSignedWebhookIT.trusting(caPem)).build()) {
            return apiServer.send(HttpRequest.newBuilder(URI.create("https://localhost:" + port + WebhookServer.VALIDATE_PATH))
                    .POST(HttpRequest.BodyPublishers.ofString(Reviews.json("rogue-nvidia-env"))).build(), HttpResponse.BodyHandlers.ofString());
        }
    }
}
