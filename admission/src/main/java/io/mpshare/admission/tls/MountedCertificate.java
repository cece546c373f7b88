package io.mpshare.admission.tls;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.security.cert.X509Certificate;
import java.util.List;

/**
 * Mounted mode: PEM files from a Secret (cert-manager's or the operator's). The CA bundle is the last certificate of
 * {@code tls.crt}, or {@code ca.crt} when given. {@link #changed} lets the caller reload after a rotation.
 */
public final class MountedCertificate {
    private final Path cert, key, ca;
    private FileTime seen;

    /** @param ca CA file, or null to take the chain's last certificate */
    public MountedCertificate(Path cert, Path key, Path ca) {
        this.cert = cert;
        this.key = key;
        this.ca = ca;
    }

    public ServingCertificate load() {
        try {
            seen = stamp();
            List<X509Certificate> chain = Pem.readCertificates(Files.readString(cert), cert.toString());
            var caCert = ca != null && Files.exists(ca) ? Pem.readCertificates(Files.readString(ca), ca.toString()).getFirst() : chain.getLast();
            return new ServingCertificate(chain, Pem.readPrivateKey(Files.readString(key), key.toString()), caCert);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the mounted TLS files " + cert + " and " + key, e);
        }
    }

    /** True when the files changed since the last {@link #load} (kubelet swaps a symlink on Secret updates). */
    public boolean changed() {
        try {
            return !stamp().equals(seen);
        } catch (IOException e) {
            return false;
        }
    }

    private FileTime stamp() throws IOException {
        FileTime a = Files.getLastModifiedTime(cert), b = Files.getLastModifiedTime(key);
        return a.compareTo(b) >= 0 ? a : b;
    }
}
