package io.mpshare.admission;

import io.fabric8.kubernetes.api.model.admission.v1.AdmissionReview;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.mpshare.admission.review.PodAdmission;
import io.mpshare.admission.tls.SelfSigned;
import io.mpshare.admission.tls.ServingCertificate;
import io.mpshare.core.Names;
import io.mpshare.core.validation.AdmissionRules;
import io.mpshare.core.validation.PodValidator;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLHandshakeException;
import javax.net.ssl.TrustManagerFactory;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.security.KeyStore;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.OptionalLong;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Real AdmissionReview JSON over real HTTPS, trusting only the CA the webhook would patch into its configurations. */
class WebhookServerIT {
    private static ServingCertificate cert;
    private static WebhookServer server;
    private static HttpClient client;
    private static final KubernetesSerialization JSON = new KubernetesSerialization();

    @BeforeAll
    static void start() throws Exception {
        // "localhost" stands for the Service DNS name here; the JDK client checks it as kube-apiserver does.
        cert = SelfSigned.create(List.of("localhost", "mpshare-webhook.mpshare-system.svc"), Instant.now(), Duration.ofDays(1));
        var admission = new PodAdmission(new PodValidator(AdmissionRules.defaults(Set.of("mpshare-system"))),
                () -> OptionalLong.of(143_771), Names.SCHEDULER_NAME, JSON);
        server = new WebhookServer(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), cert.sslContext(), admission, JSON);
        client = HttpClient.newBuilder().sslContext(trusting(cert)).connectTimeout(Duration.ofSeconds(5)).build();
    }

    @AfterAll
    static void stop() {
        server.close();
        client.close();
    }

    private static SSLContext trusting(ServingCertificate c) throws Exception {
        KeyStore ts = KeyStore.getInstance("PKCS12");
        ts.load(null, null);
        ts.setCertificateEntry("ca", io.mpshare.admission.tls.Pem.readCertificates(c.caPem(), "ca").getFirst());
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(ts);
        SSLContext ctx = SSLContext.getInstance("TLS");
        ctx.init(null, tmf.getTrustManagers(), null);
        return ctx;
    }

    private static HttpResponse<String> post(String path, String body) throws Exception {
        return client.send(HttpRequest.newBuilder(URI.create("https://localhost:" + server.port() + path))
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void validate_seedSampleOnTrustedPath_allowedWithWarnings() throws Exception {
        HttpResponse<String> r = post(WebhookServer.VALIDATE_PATH + WebhookServer.TRUSTED_SUFFIX, Reviews.json("seed-sample"));
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.headers().firstValue("Content-Type")).hasValue("application/json");
        AdmissionReview out = JSON.unmarshal(r.body(), AdmissionReview.class);
        assertThat(out.getResponse().getUid()).isEqualTo("705ab4f5-6393-11e8-b7cc-42010a800002");
        assertThat(out.getResponse().getAllowed()).isTrue();
        assertThat(out.getResponse().getWarnings()).anySatisfy(w -> assertThat(w).contains("runs as root", "quit"));
    }

    @Test
    void validate_seedSampleOnStrictPath_refusedWithTheLabel() throws Exception {
        AdmissionReview out = JSON.unmarshal(post(WebhookServer.VALIDATE_PATH, Reviews.json("seed-sample")).body(), AdmissionReview.class);
        assertThat(out.getResponse().getAllowed()).isFalse();
        assertThat(out.getResponse().getStatus().getMessage()).contains("runs as root", "kubectl label namespace default mpshare.io/tenancy=trusted");
    }

    @Test
    void validate_ephemeralContainerAsRoot_refusedOverHttps() throws Exception {
        String body = Reviews.json("ephemeral-debug").replace("DEBUG_SECURITY", "{\"runAsUser\": 0}");
        AdmissionReview out = JSON.unmarshal(post(WebhookServer.VALIDATE_PATH, body).body(), AdmissionReview.class);
        assertThat(out.getResponse().getAllowed()).isFalse();
        assertThat(out.getResponse().getStatus().getMessage()).contains("ephemeral container debugger-x7k2p runs as root");
    }

    @Test
    void mutate_seedSample_answersJsonPatch() throws Exception {
        HttpResponse<String> r = post(WebhookServer.MUTATE_PATH, Reviews.json("seed-sample"));
        assertThat(r.body()).contains("\"patchType\":\"JSONPatch\"").contains("\"allowed\":true");
    }

    @Test
    void validate_rogueNvidiaEnv_deniedWithMessage() throws Exception {
        HttpResponse<String> r = post(WebhookServer.VALIDATE_PATH, Reviews.json("rogue-nvidia-env"));
        AdmissionReview out = JSON.unmarshal(r.body(), AdmissionReview.class);
        assertThat(out.getResponse().getAllowed()).isFalse();
        assertThat(out.getResponse().getStatus().getMessage()).contains("NVIDIA_VISIBLE_DEVICES").contains("gpu-mem");
    }

    @Test
    void validate_garbage_400WithReason() throws Exception {
        HttpResponse<String> r = post(WebhookServer.VALIDATE_PATH, "{not json");
        assertThat(r.statusCode()).isEqualTo(400);
        assertThat(r.body()).startsWith("not an AdmissionReview v1");
    }

    @Test
    void validate_get_405() throws Exception {
        var r = client.send(HttpRequest.newBuilder(URI.create("https://localhost:" + server.port() + WebhookServer.VALIDATE_PATH)).GET().build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).isEqualTo(405);
    }

    @Test
    void healthz_ok() throws Exception {
        var r = client.send(HttpRequest.newBuilder(URI.create("https://localhost:" + server.port() + WebhookServer.HEALTH_PATH)).GET().build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.body()).isEqualTo("ok");
    }

    @Test
    void handshake_clientTrustingAnotherCa_refused() throws Exception {
        ServingCertificate other = SelfSigned.create(List.of("localhost"), Instant.now(), Duration.ofDays(1));
        try (HttpClient stranger = HttpClient.newBuilder().sslContext(trusting(other)).build()) {
            assertThatThrownBy(() -> stranger.send(HttpRequest.newBuilder(URI.create("https://localhost:" + server.port() + "/healthz")).build(),
                    HttpResponse.BodyHandlers.ofString())).isInstanceOf(SSLHandshakeException.class);
        }
    }
}
