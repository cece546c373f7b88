package io.mpshare.admission.tls;

import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509ExtensionUtils;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

import java.io.IOException;
import java.math.BigInteger;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.List;

/**
 * Makes a private CA and a serving certificate signed by it (EC P-256, SHA-256), for the webhook Service's DNS names.
 * The CA key is thrown away: nothing else is ever signed with it.
 */
public final class SelfSigned {
    private SelfSigned() {}

    /** The Service's DNS names: name, name.ns, name.ns.svc, name.ns.svc.cluster.local. */
    public static List<String> serviceDnsNames(String service, String namespace) {
        return List.of(service, service + "." + namespace, service + "." + namespace + ".svc",
                service + "." + namespace + ".svc.cluster.local");
    }

    public static ServingCertificate create(List<String> dnsNames, Instant now, Duration validity) {
        if (dnsNames.isEmpty()) throw new IllegalArgumentException("a serving certificate needs at least one DNS name");
        try {
            KeyPair caKeys = ecKeys(), leafKeys = ecKeys();
            Date from = Date.from(now.minus(Duration.ofMinutes(5))), to = Date.from(now.plus(validity));
            var ext = new JcaX509ExtensionUtils();
            X500Name caName = new X500Name("CN=mpshare-webhook-ca");
            X509v3CertificateBuilder ca = new JcaX509v3CertificateBuilder(caName, serial(), from, to, caName, caKeys.getPublic())
                    .addExtension(Extension.basicConstraints, true, new BasicConstraints(0))
                    .addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign))
                    .addExtension(Extension.subjectKeyIdentifier, false, ext.createSubjectKeyIdentifier(caKeys.getPublic()));
            X509Certificate caCert = sign(ca, caKeys);
            GeneralName[] sans = dnsNames.stream().map(n -> new GeneralName(GeneralName.dNSName, n)).toArray(GeneralName[]::new);
            X509v3CertificateBuilder leaf = new JcaX509v3CertificateBuilder(caName, serial(), from, to,
                    new X500Name("CN=" + dnsNames.getFirst()), leafKeys.getPublic())
                    .addExtension(Extension.basicConstraints, true, new BasicConstraints(false))
                    .addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.digitalSignature | KeyUsage.keyEncipherment))
                    .addExtension(Extension.extendedKeyUsage, false, new ExtendedKeyUsage(KeyPurposeId.id_kp_serverAuth))
                    .addExtension(Extension.subjectAlternativeName, false, new GeneralNames(sans))
                    .addExtension(Extension.authorityKeyIdentifier, false, ext.createAuthorityKeyIdentifier(caCert));
            X509Certificate leafCert = sign(leaf, caKeys);
            return new ServingCertificate(List.of(leafCert), leafKeys.getPrivate(), caCert);
        } catch (GeneralSecurityException | OperatorCreationException | IOException e) {
            throw new IllegalStateException("cannot make a self-signed certificate: " + e.getMessage(), e);
        }
    }

    private static X509Certificate sign(X509v3CertificateBuilder b, KeyPair signer) throws OperatorCreationException, GeneralSecurityException {
        return new JcaX509CertificateConverter().getCertificate(b.build(new JcaContentSignerBuilder("SHA256withECDSA").build(signer.getPrivate())));
    }

    private static KeyPair ecKeys() throws GeneralSecurityException {
        KeyPairGenerator g = KeyPairGenerator.getInstance("EC");
        g.initialize(new ECGenParameterSpec("secp256r1"));
        return g.generateKeyPair();
    }

    private static BigInteger serial() { return new BigInteger(96, new SecureRandom()).add(BigInteger.ONE); }
}
