package io.mpshare.deviceplugin;

import com.sun.net.httpserver.HttpHandler;
import com.sun.net.httpserver.HttpServer;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Executors;
import java.util.function.Supplier;

/**
 * The agent's small HTTP endpoint on the pod network: {@code /healthz} (200 while the node agent is registered
 * with kubelet and its pod cache is synced, 503 with the reason otherwise). Other handlers (the policer's
 * {@code /metrics}, {@link #metrics}) are added with {@link #handle}.
 */
public final class NodeHttp implements AutoCloseable {
    private final HttpServer server;

    /** @param problem null when healthy, else what is wrong */
    public NodeHttp(InetSocketAddress address, Supplier<String> problem) throws IOException {
        server = HttpServer.create(address, 16);
        server.setExecutor(Executors.newFixedThreadPool(2, r -> {
            Thread t = new Thread(r, "mpshare-device-plugin-http");
            t.setDaemon(true);
            return t;
        }));
        handle("/healthz", ex -> {
            String p = problem.get();
            byte[] body = (p == null ? "ok\n" : p + "\n").getBytes(StandardCharsets.UTF_8);
            ex.sendResponseHeaders(p == null ? 200 : 503, body.length);
            try (var out = ex.getResponseBody()) { out.write(body); }
        });
    }

    public NodeHttp handle(String path, HttpHandler h) {
        server.createContext(path, h);
        return this;
    }

    /** Serves {@code GET /metrics} from this registry (the policer's metrics). */
    public NodeHttp metrics(io.prometheus.metrics.model.registry.PrometheusRegistry registry) {
        return handle("/metrics", new io.mpshare.deviceplugin.policing.MetricsHandler(registry));
    }

    public NodeHttp start() {
        server.start();
        return this;
    }

    public int port() { return server.getAddress().getPort(); }

    @Override public void close() { server.stop(0); }
}
