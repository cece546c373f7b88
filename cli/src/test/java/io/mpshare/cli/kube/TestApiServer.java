package io.mpshare.cli.kube;

import com.sun.net.httpserver.HttpServer;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A plain-HTTP server on 127.0.0.1 that answers {@code GET /version} with a fixed status (200 with a Kubernetes
 * version body, or 401 as an API server does for a refused token), and counts the requests; plus kubeconfig files.
 * Enough for the probe's cases; the real API server is the {@code e2e/k8s} tier's.
 */
public final class TestApiServer implements AutoCloseable {
    private final HttpServer server;
    final AtomicInteger versionRequests = new AtomicInteger();
    final AtomicInteger lastAuthorizationMissing = new AtomicInteger();

    public TestApiServer(int status) throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/version", exchange -> {
            versionRequests.incrementAndGet();
            if (exchange.getRequestHeaders().getFirst("Authorization") == null) lastAuthorizationMissing.incrementAndGet();
            byte[] body = (status == 200 ? "{\"major\":\"1\",\"minor\":\"33\",\"gitVersion\":\"v1.33.0\"}"
                    : "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"status\":\"Failure\",\"message\":\"Unauthorized\",\"reason\":\"Unauthorized\",\"code\":401}")
                    .getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().add("Content-Type", "application/json");
            exchange.sendResponseHeaders(status, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        server.start();
    }

    public String url() { return "http://127.0.0.1:" + server.getAddress().getPort(); }

    @Override public void close() { server.stop(0); }

    /** A port nothing listens on (bound, then released). */
    static int closedPort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    /** A kubeconfig with one context per server, named as given; {@code current} may be null. */
    public static Path kubeconfig(Path file, String current, String... contextsAndServers) throws IOException {
        StringBuilder clusters = new StringBuilder(), contexts = new StringBuilder();
        for (int i = 0; i < contextsAndServers.length; i += 2) {
            String name = contextsAndServers[i];
            clusters.append("- name: ").append(name).append("\n  cluster: {server: \"").append(contextsAndServers[i + 1]).append("\"}\n");
            contexts.append("- name: ").append(name).append("\n  context: {cluster: ").append(name).append(", user: u}\n");
        }
        String yaml = "apiVersion: v1\nkind: Config\nclusters:\n" + clusters + "users:\n- name: u\n  user: {token: t0ken}\ncontexts:\n"
                + contexts + (current == null ? "" : "current-context: " + current + "\n");
        return Files.writeString(file, yaml);
    }
}
