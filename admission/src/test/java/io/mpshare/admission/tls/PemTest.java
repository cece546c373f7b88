package io.mpshare.admission.tls;

import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.junit.jupiter.api.Test;

import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class PemTest {
    @Test
    void readPrivateKey_pkcs1Rsa_asCertManagerWritesIt() throws Exception {
        KeyPairGenerator g = KeyPairGenerator.getInstance("RSA");
        g.initialize(2048);
        KeyPair kp = g.generateKeyPair();
        StringWriter sw = new StringWriter();
        try (JcaPEMWriter w = new JcaPEMWriter(sw)) { w.writeObject(kp); }
        assertThat(sw.toString()).startsWith("-----BEGIN RSA PRIVATE KEY-----");
        assertThat(Pem.readPrivateKey(sw.toString(), "tls.key")).isEqualTo(kp.getPrivate());
    }

    @Test
    void readPrivateKey_pkcs8Ec_roundTrips() {
        ServingCertificate c = SelfSigned.create(List.of("a.b.svc"), Instant.now(), Duration.ofDays(1));
        String pem = Pem.privateKey(c.key());
        assertThat(Pem.readPrivateKey(pem, "tls.key").getEncoded()).isEqualTo(c.key().getEncoded());
    }

    @Test
    void readPrivateKey_certificateOnly_saysWhatIsMissing() {
        ServingCertificate c = SelfSigned.create(List.of("a.b.svc"), Instant.now(), Duration.ofDays(1));
        assertThatThrownBy(() -> Pem.readPrivateKey(c.caPem(), "/tls/tls.key"))
                .hasMessageContaining("/tls/tls.key holds no unencrypted PEM private key");
    }

    @Test
    void mountedCertificate_caDefaultsToChainEnd_andNoticesRotation(@org.junit.jupiter.api.io.TempDir Path dir) throws Exception {
        ServingCertificate c = SelfSigned.create(List.of("a.b.svc"), Instant.now(), Duration.ofDays(1));
        Path crt = dir.resolve("tls.crt"), key = dir.resolve("tls.key");
        Files.writeString(crt, Pem.certificates(List.of(c.leaf(), c.ca())));
        Files.writeString(key, Pem.privateKey(c.key()));
        var mounted = new MountedCertificate(crt, key, null);
        ServingCertificate loaded = mounted.load();
        assertThat(loaded.ca()).isEqualTo(c.ca());
        assertThat(loaded.covers(List.of("a.b.svc"))).isTrue();
        assertThat(mounted.changed()).isFalse();
        Files.setLastModifiedTime(crt, java.nio.file.attribute.FileTime.from(Instant.now().plusSeconds(120)));
        assertThat(mounted.changed()).isTrue();
    }
}
