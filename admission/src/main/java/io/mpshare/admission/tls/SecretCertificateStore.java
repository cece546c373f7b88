package io.mpshare.admission.tls;

import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.InstantSource;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.logging.Logger;

/**
 * Self-signed mode: the serving certificate lives in a Secret of type {@code kubernetes.io/tls} (plus {@code ca.crt}),
 * so that every webhook replica serves the same certificate and the CA bundle the replicas patch agrees.
 *
 * <p>The first replica to start creates the Secret; a replica that loses the create race (409) reads the winner's.
 * A certificate that expires within {@code renewBefore} or lacks one of the Service's DNS names is replaced
 * (update with the read resourceVersion; a conflict means another replica renewed it, which is read instead).
 */
public final class SecretCertificateStore {
    private static final Logger LOG = Logger.getLogger(SecretCertificateStore.class.getName());
    static final String CA_KEY = "ca.crt";

    private final KubernetesClient client;
    private final String namespace, name;
    private final List<String> dnsNames;
    private final InstantSource clock;
    private final Duration validity, renewBefore;

    public SecretCertificateStore(KubernetesClient client, String namespace, String name, List<String> dnsNames,
                                  InstantSource clock, Duration validity, Duration renewBefore) {
        this.client = client;
        this.namespace = namespace;
        this.name = name;
        this.dnsNames = List.copyOf(dnsNames);
        this.clock = clock;
        this.validity = validity;
        this.renewBefore = renewBefore;
    }

    public ServingCertificate obtain() {
        for (int attempt = 0; attempt < 5; attempt++) {
            Secret s = client.secrets().inNamespace(namespace).withName(name).get();
            ServingCertificate current = s == null ? null : read(s);
            if (current != null && current.validFor(clock.instant(), renewBefore) && current.covers(dnsNames)) return current;
            ServingCertificate fresh = SelfSigned.create(dnsNames, clock.instant(), validity);
            try {
                if (s == null) {
                    client.secrets().inNamespace(namespace).resource(secret(fresh, null)).create();
                    LOG.info("created TLS secret " + namespace + "/" + name + " for " + dnsNames);
                } else {
                    client.secrets().inNamespace(namespace).resource(secret(fresh, s.getMetadata().getResourceVersion())).update();
                    LOG.info("renewed TLS secret " + namespace + "/" + name + " for " + dnsNames);
                }
                return fresh;
            } catch (KubernetesClientException e) {
                if (e.getCode() != 409) throw e;
                // another replica wrote it first: read theirs
            }
        }
        throw new IllegalStateException("TLS secret " + namespace + "/" + name + " kept changing under us; is another webhook fighting over it?");
    }

    private ServingCertificate read(Secret s) {
        Map<String, String> d = s.getData();
        if (d == null || d.get("tls.crt") == null || d.get("tls.key") == null || d.get(CA_KEY) == null) return null;
        try {
            String src = "secret " + namespace + "/" + name;
            return new ServingCertificate(Pem.readCertificates(decode(d.get("tls.crt")), src), Pem.readPrivateKey(decode(d.get("tls.key")), src),
                    Pem.readCertificates(decode(d.get(CA_KEY)), src).getFirst());
        } catch (IllegalArgumentException e) {
            LOG.warning("TLS secret " + namespace + "/" + name + " cannot be read, making a new one: " + e.getMessage());
            return null;
        }
    }

    private Secret secret(ServingCertificate c, String resourceVersion) {
        return new SecretBuilder().withNewMetadata().withNamespace(namespace).withName(name).withResourceVersion(resourceVersion)
                .addToLabels("app.kubernetes.io/managed-by", "mpshare-webhook").endMetadata()
                .withType("kubernetes.io/tls")
                .addToData("tls.crt", encode(Pem.certificates(c.chain())))
                .addToData("tls.key", encode(Pem.privateKey(c.key())))
                .addToData(CA_KEY, encode(c.caPem()))
                .build();
    }

    private static String decode(String b64) { return new String(Base64.getDecoder().decode(b64), StandardCharsets.US_ASCII); }

    private static String encode(String s) { return Base64.getEncoder().encodeToString(s.getBytes(StandardCharsets.US_ASCII)); }
}
