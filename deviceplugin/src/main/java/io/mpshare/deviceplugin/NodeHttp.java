package io.mpshare.deviceplugin;

import com.sun.net.httpserver.HttpHandler;
import com.sun.net.httpserver.HttpServer;
import io.mpshare.deviceplugin.policing.MetricsHandler;
import io.mpshare.kube.http.DeadlineExecutor;
import io.prometheus.metrics.model.registry.PrometheusRegistry;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.function.Supplier;

/**
 * The agent's small HTTP endpoint on the pod network: {@code /healthz} (200 while the node agent is registered
 * with kubelet and its pod cache is synced, 503 with the reason otherwise), which kubelet's liveness and readiness
 * probes call on the pod's address, and the policer's {@code /metrics} ({@link #metrics}).
 *
 * <p>Implementation notes. Kubelet restarts the agent (and so stops its policer, its ceilings and Allocate) when
 * {@code /healthz} does not answer within the probe's timeout (1 s), so nothing that reaches the port may delay it:
 * every exchange runs on a virtual thread of its own, cut off at {@link #EXCHANGE_DEADLINE} ({@link DeadlineExecutor}).
 * A client that stops mid-request holds a virtual thread's stack for that long, never a worker the probe needs. Who may
 * reach the port at all is the chart's NetworkPolicy (docs/security.md); the per-pod series on {@code /metrics} are
 * served only where it is in place ({@code --pod-metrics}).
 */
public final class NodeHttp implements AutoCloseable {
    /** The longest one exchange may take; a scrape or a probe takes milliseconds. */
    public static final Duration EXCHANGE_DEADLINE = Duration.ofSeconds(10);

    private final HttpServer server;
    private final DeadlineExecutor executor;

    /** @param problem null when healthy, else what is wrong */
    public NodeHttp(InetSocketAddress address, Supplier<String> problem) throws IOException {
        this(address, problem, EXCHANGE_DEADLINE);
    }

    NodeHttp(InetSocketAddress address, Supplier<String> problem, Duration deadline) throws IOException {
        server = HttpServer.create(address, 64);
        executor = new DeadlineExecutor("mpshare-device-plugin-http", deadline);
        server.setExecutor(executor);
        handle("/healthz", ex -> {
            try (ex) {
                String p = problem.get();
                byte[] body = (p == null ? "ok\n" : p + "\n").getBytes(StandardCharsets.UTF_8);
                ex.sendResponseHeaders(p == null ? 200 : 503, body.length);
                ex.getResponseBody().write(body);
            }
        });
    }

    public NodeHttp handle(String path, HttpHandler h) {
        server.createContext(path, h);
        return this;
    }

    /** Serves {@code GET /metrics} from this registry (the policer's metrics). */
    public NodeHttp metrics(PrometheusRegistry registry) {
        return handle("/metrics", new MetricsHandler(registry));
    }

    public NodeHttp start() {
        server.start();
        return this;
    }

    public int port() { return server.getAddress().getPort(); }

    @Override public void close() {
        server.stop(0);
        executor.close();
    }
}
