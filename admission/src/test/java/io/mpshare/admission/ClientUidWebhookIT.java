package io.mpshare.admission;

import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.admission.v1.AdmissionReview;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.mpshare.admission.cluster.NamespaceClientUids;
import io.mpshare.admission.review.PodAdmission;
import io.mpshare.admission.tls.Pem;
import io.mpshare.admission.tls.SelfSigned;
import io.mpshare.admission.tls.ServingCertificate;
import io.mpshare.core.Names;
import io.mpshare.core.validation.AdmissionRules;
import io.mpshare.core.validation.PodValidator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.security.KeyStore;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The client-UID binding end to end at unit level: namespaces in fabric8's API mock server, the webhook's namespace
 * informer on them, and AdmissionReviews over the real HTTPS webhook.
 */
@EnableKubernetesMockClient(crud = true)
class ClientUidWebhookIT {
    private static final KubernetesSerialization JSON = new KubernetesSerialization();
    KubernetesClient client;
    private WebhookServer server;
    private HttpClient http;
    private SharedIndexInformer<io.fabric8.kubernetes.api.model.Namespace> informer;
    private NamespaceClientUids uids;

    @BeforeEach
    void start() throws Exception {
        annotate("team-a", "1000");
        client.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName("team-c").endMetadata().build()).create();
        uids = new NamespaceClientUids();
        informer = client.namespaces().inform(uids, 0);
        ServingCertificate cert = SelfSigned.create(List.of("localhost"), Instant.now(), Duration.ofDays(1));
        var admission = new PodAdmission(new PodValidator(AdmissionRules.defaults(Set.of("mpshare-system"))),
                () -> OptionalLong.of(143_771), Names.SCHEDULER_NAME, JSON, Optional.empty(), Optional.of(uids));
        server = new WebhookServer(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), cert.sslContext(), admission, JSON);
        KeyStore ts = KeyStore.getInstance("PKCS12");
        ts.load(null, null);
        ts.setCertificateEntry("ca", Pem.readCertificates(cert.caPem(), "ca").getFirst());
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(ts);
        SSLContext ctx = SSLContext.getInstance("TLS");
        ctx.init(null, tmf.getTrustManagers(), null);
        http = HttpClient.newBuilder().sslContext(ctx).connectTimeout(Duration.ofSeconds(5)).build();
    }

    @AfterEach
    void stop() {
        server.close();
        informer.close();
        http.close();
    }

    private void annotate(String ns, String uid) {
        client.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(ns)
                .addToAnnotations(Names.ANN_CLIENT_UID, uid).endMetadata().build()).createOr(r -> r.update());
    }

    /** A CREATE review of a non-root shared-GPU pod in {@code ns}; {@code uid} null leaves runAsUser unset. */
    private static String review(String ns, Long uid) {
        String sc = uid == null ? "{\"runAsNonRoot\":true}" : "{\"runAsUser\":" + uid + ",\"runAsNonRoot\":true}";
        return "{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":\"AdmissionReview\",\"request\":{\"uid\":\"r1\","
                + "\"kind\":{\"group\":\"\",\"version\":\"v1\",\"kind\":\"Pod\"},\"namespace\":\"" + ns + "\",\"operation\":\"CREATE\","
                + "\"object\":{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"p\",\"namespace\":\"" + ns + "\"},"
                + "\"spec\":{\"schedulerName\":\"" + Names.SCHEDULER_NAME + "\",\"securityContext\":" + sc + ",\"containers\":[{\"name\":\"main\","
                + "\"image\":\"cuda\",\"securityContext\":{\"allowPrivilegeEscalation\":false},"
                + "\"resources\":{\"limits\":{\"" + Names.RESOURCE_GPU_MEM + "\":\"4\"}}}]}}}}";
    }

    private AdmissionReview post(String path, String body) throws Exception {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create("https://localhost:" + server.port() + path))
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).isEqualTo(200);
        return JSON.unmarshal(r.body(), AdmissionReview.class);
    }

    @Test
    void mutate_boundNamespaceNoRunAsUser_patchSetsTheNamespacesUid() throws Exception {
        var resp = post(WebhookServer.MUTATE_PATH, review("team-a", null)).getResponse();
        String patch = new String(Base64.getDecoder().decode(resp.getPatch()), StandardCharsets.UTF_8);
        assertThat(patch).contains("\"path\":\"/spec/securityContext/runAsUser\",\"value\":1000");
    }

    @Test
    void validate_boundNamespaceAnotherUid_refusedOverHttps() throws Exception {
        var resp = post(WebhookServer.VALIDATE_PATH, review("team-a", 1001L)).getResponse();
        assertThat(resp.getAllowed()).isFalse();
        assertThat(resp.getStatus().getMessage()).contains("runs as UID 1001", "set securityContext.runAsUser: 1000", Names.ANN_CLIENT_UID);
    }

    @Test
    void validate_victimsUidFromAnotherNamespace_refusedOnceTheInformerSeesTheBinding() throws Exception {
        var before = post(WebhookServer.VALIDATE_PATH, review("team-c", 2000L)).getResponse();
        assertThat(before.getAllowed()).isTrue();
        assertThat(before.getWarnings()).anySatisfy(w -> assertThat(w).contains("namespace team-c has no " + Names.ANN_CLIENT_UID));
        annotate("team-b", "2000");
        await().atMost(Duration.ofSeconds(10)).until(() -> !uids.claimants(2000).isEmpty());
        var after = post(WebhookServer.VALIDATE_PATH, review("team-c", 2000L)).getResponse();
        assertThat(after.getAllowed()).isFalse();
        assertThat(after.getStatus().getMessage()).contains("UID 2000 belongs to namespace team-b");
    }

    @Test
    void validate_trustedPath_bindingNotApplied() throws Exception {
        var resp = post(WebhookServer.VALIDATE_PATH + WebhookServer.TRUSTED_SUFFIX, review("team-c", 1000L)).getResponse();
        assertThat(resp.getAllowed()).isTrue();
    }
}
