package io.mpshare.e2e.k8s;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;

/** Writes a self-contained kubeconfig file (data embedded) for one identity: a client certificate or a bearer token. */
final class Kubeconfig {
    private Kubeconfig() {}

    static Path withCert(Path file, String server, String caPem, Pki.Pem client) {
        return write(file, server, caPem, "    client-certificate-data: " + b64(client.cert()) + "\n    client-key-data: " + b64(client.key()) + "\n");
    }

    static Path withToken(Path file, String server, String caPem, String token) {
        return write(file, server, caPem, "    token: " + token + "\n");
    }

    private static Path write(Path file, String server, String caPem, String user) {
        String text = """
                apiVersion: v1
                kind: Config
                clusters:
                - name: mpshare-e2e
                  cluster:
                    server: %s
                    certificate-authority-data: %s
                users:
                - name: me
                  user:
                %scontexts:
                - name: mpshare-e2e
                  context: {cluster: mpshare-e2e, user: me}
                current-context: mpshare-e2e
                """.formatted(server, b64(caPem), user);
        try {
            Files.createDirectories(file.getParent());
            Files.writeString(file, text);
            return file;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String b64(String s) { return Base64.getEncoder().encodeToString(s.getBytes(StandardCharsets.UTF_8)); }
}
