package io.mpshare.admission;

import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingWebhookConfigurationBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.mpshare.admission.review.PodAdmission;
import io.mpshare.admission.tls.CaBundlePatcher;
import io.mpshare.admission.tls.Pem;
import io.mpshare.admission.tls.SecretCertificateStore;
import io.mpshare.admission.tls.SelfSigned;
import io.mpshare.admission.tls.ServingCertificate;
import io.mpshare.core.validation.AdmissionRules;
import io.mpshare.core.validation.PodValidator;
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
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.OptionalLong;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The self-signed chain as `mpshare webhook` wires it, against the API test server: the certificate from the Secret
 * is served, and the caBundle read back from the ValidatingWebhookConfiguration (what kube-apiserver trusts) verifies it.
 */
@EnableKubernetesMockClient(crud = true)
class SelfSignedWebhookIT {
    KubernetesClient client;

    @Test
    void caBundleInTheConfiguration_verifiesTheServedCertificate() throws Exception {
        String ns = "mpshare-system", svc = "mpshare-webhook";
        client.admissionRegistration().v1().validatingWebhookConfigurations().resource(new ValidatingWebhookConfigurationBuilder()
                .withNewMetadata().withName(svc).endMetadata()
                .addNewWebhook().withName("pods.validate.mpshare.io").withNewClientConfig().withNewService()
                .withName(svc).withNamespace(ns).withPath("/validate").endService().endClientConfig()
                .withSideEffects("None").withAdmissionReviewVersions("v1").endWebhook().build()).create();
        List<String> dns = new ArrayList<>(SelfSigned.serviceDnsNames(svc, ns));
        dns.add("localhost"); // the Service name kube-apiserver would dial, here on loopback
        ServingCertificate cert = new SecretCertificateStore(client, ns, "mpshare-webhook-tls", dns, InstantSource.system(),
                Duration.ofDays(3650), Duration.ofDays(30)).obtain();
        new CaBundlePatcher(client, List.of(), List.of(svc), svc, ns).patch(cert.caPem());

        String bundle = client.admissionRegistration().v1().validatingWebhookConfigurations().withName(svc).get()
                .getWebhooks().getFirst().getClientConfig().getCaBundle();
        String caPem = new String(Base64.getDecoder().decode(bundle), StandardCharsets.US_ASCII);

        var admission = new PodAdmission(new PodValidator(AdmissionRules.defaults(Set.of(ns))), OptionalLong::empty, "");
        try (var server = new WebhookServer(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), cert.sslContext(), admission);
             HttpClient apiServer = HttpClient.newBuilder().sslContext(trusting(caPem)).build()) {
            HttpResponse<String> r = apiServer.send(HttpRequest.newBuilder(URI.create("https://localhost:" + server.port() + WebhookServer.VALIDATE_PATH))
                    .POST(HttpRequest.BodyPublishers.ofString(Reviews.json("rogue-nvidia-env"))).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(r.statusCode()).isEqualTo(200);
            assertThat(r.body()).contains("\"allowed\":false").contains("NVIDIA_VISIBLE_DEVICES");
        }
    }

    /** A TLS context that trusts only {@code caPem}, as kube-apiserver trusts the caBundle. */
    static SSLContext trusting(String caPem) throws Exception {
        KeyStore ts = KeyStore.getInstance("PKCS12");
        ts.load(null, null);
        ts.setCertificateEntry("ca", Pem.readCertificates(caPem, "caBundle").getFirst());
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(ts);
        SSLContext ctx = SSLContext.getInstance("TLS");
        ctx.init(null, tmf.getTrustManagers(), null);
        return ctx;
    }
}
