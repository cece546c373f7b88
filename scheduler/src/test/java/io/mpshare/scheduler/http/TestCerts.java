package io.mpshare.scheduler.http;

import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.util.Base64;
import java.util.concurrent.TimeUnit;

/**
 * Self-signed EC certificates for TLS tests, made with the JDK's own {@code keytool} (no openssl, no BouncyCastle),
 * and written as the PEM files the extender reads.
 */
record TestCerts(Path p12, Path certPem, Path keyPem) {
    private static final char[] PASS = "changeit".toCharArray();

    static TestCerts create(Path dir, String cn) throws Exception {
        Path p12 = dir.resolve(cn + ".p12");
        String keytool = Path.of(System.getProperty("java.home"), "bin", "keytool").toString();
        Process p = new ProcessBuilder(keytool, "-J-XX:TieredStopAtLevel=1", "-J-XX:+UseSerialGC", "-genkeypair", "-alias", cn, "-keyalg", "EC", "-groupname", "secp256r1",
                "-dname", "CN=" + cn, "-ext", "SAN=ip:127.0.0.1,dns:localhost", "-validity", "2",
                "-keystore", p12.toString(), "-storetype", "PKCS12", "-storepass", new String(PASS)).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) throw new IllegalStateException("keytool failed: " + out);
        KeyStore ks = load(p12);
        Certificate cert = ks.getCertificate(cn);
        PrivateKey key = (PrivateKey) ks.getKey(cn, PASS);
        Path certPem = dir.resolve(cn + ".crt"), keyPem = dir.resolve(cn + ".key");
        Files.writeString(certPem, pem("CERTIFICATE", cert.getEncoded()));
        Files.writeString(keyPem, pem("PRIVATE KEY", key.getEncoded()));
        return new TestCerts(p12, certPem, keyPem);
    }

    /** A client context that presents {@code me} (null: no certificate) and trusts {@code server} only. */
    static SSLContext clientContext(TestCerts me, TestCerts server) throws Exception {
        KeyStore trust = KeyStore.getInstance("PKCS12");
        trust.load(null, PASS);
        KeyStore serverKs = load(server.p12);
        trust.setCertificateEntry("server", serverKs.getCertificate(serverKs.aliases().nextElement()));
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(trust);
        KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        kmf.init(me == null ? emptyStore() : load(me.p12), PASS);
        SSLContext ctx = SSLContext.getInstance("TLS");
        ctx.init(kmf.getKeyManagers(), tmf.getTrustManagers(), null);
        return ctx;
    }

    private static KeyStore emptyStore() throws Exception {
        KeyStore ks = KeyStore.getInstance("PKCS12");
        ks.load(null, PASS);
        return ks;
    }

    private static KeyStore load(Path p12) throws Exception {
        KeyStore ks = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(p12)) { ks.load(in, PASS); }
        return ks;
    }

    private static String pem(String type, byte[] der) {
        return "-----BEGIN " + type + "-----\n" + Base64.getMimeEncoder(64, "\n".getBytes()).encodeToString(der) + "\n-----END " + type + "-----\n";
    }
}
