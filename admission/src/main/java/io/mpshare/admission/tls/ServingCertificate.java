package io.mpshare.admission.tls;

import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import java.io.IOException;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.CertificateParsingException;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * A serving certificate chain with its key, and the CA bundle clients (kube-apiserver) trust it by.
 *
 * @param chain leaf first
 * @param ca    the certificate to put in the webhook configurations' {@code caBundle}
 */
public record ServingCertificate(List<X509Certificate> chain, PrivateKey key, X509Certificate ca) {
    public ServingCertificate {
        chain = List.copyOf(chain);
        if (chain.isEmpty()) throw new IllegalArgumentException("certificate chain is empty");
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(ca, "ca");
    }

    public X509Certificate leaf() { return chain.getFirst(); }

    /** The PEM text of the CA, as {@code caBundle} wants it (the API takes it base64-encoded once more). */
    public String caPem() { return Pem.certificates(List.of(ca)); }

    /** True when the leaf is valid at {@code at} and stays valid for {@code margin} more. */
    public boolean validFor(Instant at, Duration margin) {
        return !leaf().getNotBefore().toInstant().isAfter(at) && leaf().getNotAfter().toInstant().isAfter(at.plus(margin));
    }

    /** True when the leaf's subject alternative names include every one of {@code dnsNames}. */
    public boolean covers(List<String> dnsNames) {
        try {
            var sans = leaf().getSubjectAlternativeNames();
            if (sans == null) return dnsNames.isEmpty();
            var names = sans.stream().filter(l -> (Integer) l.get(0) == 2).map(l -> (String) l.get(1)).toList();
            return names.containsAll(dnsNames);
        } catch (CertificateParsingException e) {
            return false;
        }
    }

    public SSLContext sslContext() {
        try {
            KeyStore ks = KeyStore.getInstance("PKCS12");
            ks.load(null, null);
            char[] pw = new char[0];
            ks.setKeyEntry("serving", key, pw, chain.toArray(X509Certificate[]::new));
            KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            kmf.init(ks, pw);
            SSLContext ctx = SSLContext.getInstance("TLS");
            ctx.init(kmf.getKeyManagers(), null, null);
            return ctx;
        } catch (GeneralSecurityException | IOException e) {
            throw new IllegalStateException("cannot build the TLS context from the serving certificate: " + e.getMessage(), e);
        }
    }
}
