package io.mpshare.admission.tls;

import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.openssl.PEMKeyPair;
import org.bouncycastle.openssl.PEMParser;
import org.bouncycastle.openssl.jcajce.JcaPEMKeyConverter;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.openssl.jcajce.JcaPKCS8Generator;
import org.bouncycastle.util.io.pem.PemGenerationException;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.StringReader;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.PrivateKey;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;

/** PEM in and out: certificate chains (JDK) and private keys in PKCS#1, SEC1 (EC) or PKCS#8 form (BouncyCastle). */
public final class Pem {
    private Pem() {}

    public static List<X509Certificate> readCertificates(String pem, String source) {
        try {
            var cf = CertificateFactory.getInstance("X.509");
            List<X509Certificate> out = new ArrayList<>();
            for (var c : cf.generateCertificates(new ByteArrayInputStream(pem.getBytes(StandardCharsets.US_ASCII))))
                out.add((X509Certificate) c);
            if (out.isEmpty()) throw new IllegalArgumentException(source + " holds no PEM certificate");
            return out;
        } catch (CertificateException e) {
            throw new IllegalArgumentException(source + " is not a PEM certificate chain: " + e.getMessage(), e);
        }
    }

    public static PrivateKey readPrivateKey(String pem, String source) {
        try (PEMParser p = new PEMParser(new StringReader(pem))) {
            var conv = new JcaPEMKeyConverter();
            for (Object o = p.readObject(); o != null; o = p.readObject()) {
                if (o instanceof PEMKeyPair kp) return conv.getPrivateKey(kp.getPrivateKeyInfo());
                if (o instanceof PrivateKeyInfo pki) return conv.getPrivateKey(pki);
            }
            throw new IllegalArgumentException(source + " holds no unencrypted PEM private key (PKCS#1, EC or PKCS#8)");
        } catch (IOException e) {
            throw new IllegalArgumentException(source + " cannot be read as a PEM private key: " + e.getMessage(), e);
        }
    }

    public static String certificates(List<X509Certificate> certs) { return write(certs.toArray()); }

    /** PKCS#8 ("PRIVATE KEY"), readable by every TLS stack. */
    public static String privateKey(PrivateKey key) {
        try {
            return write(new JcaPKCS8Generator(key, null));
        } catch (PemGenerationException e) {
            throw new IllegalArgumentException("cannot write the private key as PKCS#8: " + e.getMessage(), e);
        }
    }

    private static String write(Object... objects) {
        StringWriter sw = new StringWriter();
        try (JcaPEMWriter w = new JcaPEMWriter(sw)) {
            for (Object o : objects) w.writeObject(o);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return sw.toString();
    }
}
