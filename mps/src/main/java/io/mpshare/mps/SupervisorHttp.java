package io.mpshare.mps;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.util.concurrent.Executors;

/**
 * The supervisor's API ({@link SupervisorApi}) on a TCP address (JDK HTTP server), for hand tests and host mode's
 * {@code --status-port}. Off in the chart: the node agent uses the unix socket ({@link SupervisorSocketServer}), which
 * no pod can reach; anything that shares this address's network namespace could change ceilings through it.
 */
public final class SupervisorHttp implements AutoCloseable {
    private final HttpServer server;
    private final SupervisorApi api;

    public SupervisorHttp(MpsSupervisor supervisor, SupervisorMetrics metrics, InetSocketAddress address) throws IOException {
        this.api = new SupervisorApi(supervisor, supervisor, metrics, SupervisorSocketServer.DEFAULT_HEARTBEAT_DEADLINE, SupervisorSocketServer.DEFAULT_BUSY_LIMIT);
        server = HttpServer.create(address, 16);
        server.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
        server.createContext("/", this::handle);
    }

    public void start() { server.start(); }

    /** The bound port (useful with port 0 in tests). */
    public int port() { return server.getAddress().getPort(); }

    @Override public void close() { server.stop(0); }

    private void handle(HttpExchange ex) {
        try (ex) {
            UnixHttp.Response r = api.handle(ex.getRequestMethod(), ex.getRequestURI().getPath(), ex.getRequestBody().readNBytes(UnixHttp.MAX_BYTES));
            ex.getResponseHeaders().set("Content-Type", r.contentType());
            ex.sendResponseHeaders(r.code(), r.body().length == 0 ? -1 : r.body().length);
            try (OutputStream out = ex.getResponseBody()) {
                out.write(r.body());
            }
        } catch (IOException e) {
            // the client went away
        }
    }

}
