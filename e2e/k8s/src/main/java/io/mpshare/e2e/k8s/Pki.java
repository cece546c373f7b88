package io.mpshare.e2e.k8s;

import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x500.X500NameBuilder;
import org.bouncycastle.asn1.x500.style.BCStyle;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Date;
import java.util.List;

/**
 * The control plane's keys, as PEM files in one folder: a CA (signs the apiserver's serving certificate and every
 * client certificate), the service-account signing key pair, and client certificates on request
 * ({@code CN=user, O=group...}, which kube-apiserver's client-certificate authenticator reads as user and groups).
 * The CA is EC P-256; leaf and service-account keys are RSA 2048 (fabric8 reads client keys as RSA by default).
 */
public final class Pki {
    /** A certificate and its key, as PEM text. */
    public record Pem(String cert, String key) {}

    private final Path dir;
    private final KeyPair caKeys;
    private final X509Certificate caCert;
    private final X500Name caName = new X500Name("CN=mpshare-e2e-ca");

    private Pki(Path dir) throws GeneralSecurityException {
        this.dir = dir;
        this.caKeys = keys("EC");
        Instant now = Instant.now();
        try {
            X509v3CertificateBuilder b = new JcaX509v3CertificateBuilder(caName, serial(), from(now), to(now), caName, caKeys.getPublic())
                    .addExtension(Extension.basicConstraints, true, new BasicConstraints(true))
                    .addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign | KeyUsage.digitalSignature));
            this.caCert = sign(b);
        } catch (IOException | OperatorCreationException e) {
            throw new GeneralSecurityException(e);
        }
    }

    /** Makes a new CA and the service-account keys under {@code dir}. */
    public static Pki create(Path dir) {
        try {
            Files.createDirectories(dir);
            Pki pki = new Pki(dir);
            Files.writeString(pki.caFile(), pem(pki.caCert));
            Files.writeString(dir.resolve("ca.key"), pem(pki.caKeys.getPrivate()));
            KeyPair sa = keys("RSA");
            Files.writeString(pki.saKeyFile(), pem(sa.getPrivate()));
            Files.writeString(pki.saPubFile(), pem(sa.getPublic()));
            return pki;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("cannot make the test CA: " + e.getMessage(), e);
        }
    }

    public Path dir() { return dir; }
    public Path caFile() { return dir.resolve("ca.crt"); }
    public Path saKeyFile() { return dir.resolve("sa.key"); }
    public Path saPubFile() { return dir.resolve("sa.pub"); }
    public String caPem() { return pem(caCert); }

    /** A serving certificate for 127.0.0.1 and localhost (and the given extra DNS names), written as NAME.crt/NAME.key. */
    public Pem serving(String name, List<String> dnsNames) {
        var sans = new ArrayList<GeneralName>();
        sans.add(new GeneralName(GeneralName.iPAddress, "127.0.0.1"));
        sans.add(new GeneralName(GeneralName.dNSName, "localhost"));
        dnsNames.forEach(d -> sans.add(new GeneralName(GeneralName.dNSName, d)));
        return issue(name, new X500Name("CN=" + name), KeyPurposeId.id_kp_serverAuth, new GeneralNames(sans.toArray(GeneralName[]::new)));
    }

    /** A client certificate for {@code user} in {@code groups}, written as FILE.crt/FILE.key. */
    public Pem client(String file, String user, List<String> groups) {
        X500NameBuilder n = new X500NameBuilder(BCStyle.INSTANCE);
        groups.forEach(g -> n.addRDN(BCStyle.O, g));
        n.addRDN(BCStyle.CN, user);
        return issue(file, n.build(), KeyPurposeId.id_kp_clientAuth, null);
    }

    public Path certFile(String name) { return dir.resolve(name + ".crt"); }
    public Path keyFile(String name) { return dir.resolve(name + ".key"); }

    private Pem issue(String file, X500Name subject, KeyPurposeId usage, GeneralNames sans) {
        try {
            KeyPair k = keys("RSA"); // fabric8 reads client keys as RSA unless told otherwise
            Instant now = Instant.now();
            X509v3CertificateBuilder b = new JcaX509v3CertificateBuilder(caName, serial(), from(now), to(now), subject, k.getPublic())
                    .addExtension(Extension.basicConstraints, true, new BasicConstraints(false))
                    .addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.digitalSignature | KeyUsage.keyEncipherment))
                    .addExtension(Extension.extendedKeyUsage, false, new ExtendedKeyUsage(usage));
            if (sans != null) b.addExtension(Extension.subjectAlternativeName, false, sans);
            Pem out = new Pem(pem(sign(b)), pem(k.getPrivate()));
            Files.writeString(certFile(file), out.cert());
            Files.writeString(keyFile(file), out.key());
            return out;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (GeneralSecurityException | OperatorCreationException e) {
            throw new IllegalStateException("cannot issue a certificate for " + subject + ": " + e.getMessage(), e);
        }
    }

    private X509Certificate sign(X509v3CertificateBuilder b) throws GeneralSecurityException, OperatorCreationException {
        return new JcaX509CertificateConverter().getCertificate(b.build(new JcaContentSignerBuilder("SHA256withECDSA").build(caKeys.getPrivate())));
    }

    private static KeyPair keys(String alg) throws GeneralSecurityException {
        KeyPairGenerator g = KeyPairGenerator.getInstance(alg);
        if (alg.equals("EC")) g.initialize(new ECGenParameterSpec("secp256r1"));
        else g.initialize(2048);
        return g.generateKeyPair();
    }

    private static Date from(Instant now) { return Date.from(now.minus(Duration.ofHours(1))); }
    private static Date to(Instant now) { return Date.from(now.plus(Duration.ofDays(365))); }
    private static BigInteger serial() { return new BigInteger(96, new SecureRandom()).add(BigInteger.ONE); }

    /** PKCS#8 ("PRIVATE KEY"), which Go's crypto/tls and fabric8 both read for RSA and EC keys. */
    static String pem(PrivateKey k) {
        return "-----BEGIN PRIVATE KEY-----\n" + Base64.getMimeEncoder(64, "\n".getBytes()).encodeToString(k.getEncoded())
                + "\n-----END PRIVATE KEY-----\n";
    }

    static String pem(Object o) {
        var sw = new StringWriter();
        try (var w = new JcaPEMWriter(sw)) {
            w.writeObject(o);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return sw.toString();
    }
}
