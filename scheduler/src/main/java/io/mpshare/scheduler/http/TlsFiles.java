package io.mpshare.scheduler.http;

import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.Base64;
import java.util.Objects;

/**
 * The extender's HTTPS material, as PEM files: its serving certificate (chain) and PKCS#8 key, and the CA
 * that signs the client certificate kube-scheduler presents (the extender config's {@code tlsConfig}).
 * The trust store holds that CA alone, never the JVM's default CAs: a client certificate is accepted only
 * when this CA signed it.
 */
public record TlsFiles(Path cert, Path key, Path clientCa) {
    public TlsFiles {
        Objects.requireNonNull(cert, "cert");
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(clientCa, "clientCa");
    }

    /** An SSLContext serving {@code cert}/{@code key} and verifying clients against {@code clientCa} only. */
    public SSLContext context() throws IOException {
        try {
            CertificateFactory cf = CertificateFactory.getInstance("X.509");
            Certificate[] chain;
            try (InputStream in = Files.newInputStream(cert)) { chain = cf.generateCertificates(in).toArray(Certificate[]::new); }
            if (chain.length == 0) throw new IOException(cert + " holds no PEM certificate");
            char[] pass = new char[0];
            KeyStore ks = KeyStore.getInstance("PKCS12");
            ks.load(null, pass);
            ks.setKeyEntry("extender", privateKey(key), pass, chain);
            KeyStore ts = KeyStore.getInstance("PKCS12");
            ts.load(null, pass);
            int i = 0;
            try (InputStream in = Files.newInputStream(clientCa)) { for (Certificate c : cf.generateCertificates(in)) ts.setCertificateEntry("ca-" + i++, c); }
            if (i == 0) throw new IOException(clientCa + " holds no PEM certificate");
            KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            kmf.init(ks, pass);
            TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            tmf.init(ts);
            SSLContext ctx = SSLContext.getInstance("TLS");
            ctx.init(kmf.getKeyManagers(), tmf.getTrustManagers(), null);
            return ctx;
        } catch (GeneralSecurityException e) {
            throw new IOException("cannot use the TLS files " + cert + ", " + key + ", " + clientCa + ": " + e.getMessage(), e);
        }
    }

    static PrivateKey privateKey(Path pem) throws IOException, GeneralSecurityException {
        String text = Files.readString(pem);
        String begin = "-----BEGIN PRIVATE KEY-----", end = "-----END PRIVATE KEY-----";
        int b = text.indexOf(begin), e = text.indexOf(end);
        if (b < 0 || e < b)
            throw new IOException(pem + " is not a PKCS#8 PEM key (-----BEGIN PRIVATE KEY-----): convert it with "
                    + "'openssl pkcs8 -topk8 -nocrypt -in key.pem -out key-pkcs8.pem' (cert-manager: privateKey.encoding: PKCS8)");
        byte[] der = Base64.getMimeDecoder().decode(text.substring(b + begin.length(), e));
        GeneralSecurityException last = null;
        for (String alg : new String[]{"RSA", "EC", "Ed25519"}) {
            try { return KeyFactory.getInstance(alg).generatePrivate(new PKCS8EncodedKeySpec(der)); }
            catch (GeneralSecurityException x) { last = x; }
        }
        throw new IOException(pem + ": not an RSA, EC or Ed25519 key: " + last.getMessage());
    }
}
