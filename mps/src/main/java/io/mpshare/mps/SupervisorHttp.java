package io.mpshare.mps;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The supervisor's local HTTP endpoint (JDK HTTP server, 127.0.0.1 by default):
 * {@code GET /status} (JSON, {@link SupervisorStatus}), {@code GET /healthz} (200 when ready, else 503),
 * {@code GET /metrics} (Prometheus text), {@code PUT|POST /ceilings/<device>} with {@code {"mib": N}}
 * (answers the new status; 400 bad input, 409 the daemon rejected it and the previous ceiling stays,
 * 503 the daemon did not answer and the ceiling is pending).
 */
public final class SupervisorHttp implements AutoCloseable {
    private static final Pattern CEILING = Pattern.compile("/ceilings/(\\d+)/?");
    private static final long APPLY_TIMEOUT_S = 30;
    private final HttpServer server;
    private final MpsSupervisor supervisor;
    private final SupervisorMetrics metrics;

    public SupervisorHttp(MpsSupervisor supervisor, SupervisorMetrics metrics, InetSocketAddress address) throws IOException {
        this.supervisor = supervisor;
        this.metrics = metrics;
        server = HttpServer.create(address, 16);
        server.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
        server.createContext("/status", ex -> handle(ex, this::status));
        server.createContext("/healthz", ex -> handle(ex, this::healthz));
        server.createContext("/metrics", ex -> handle(ex, this::metrics));
        server.createContext("/ceilings", ex -> handle(ex, this::ceiling));
    }

    public void start() { server.start(); }

    /** The bound port (useful with port 0 in tests). */
    public int port() { return server.getAddress().getPort(); }

    @Override public void close() { server.stop(0); }

    private interface Handler { void handle(HttpExchange ex) throws IOException; }

    private static void handle(HttpExchange ex, Handler h) {
        try (ex) {
            h.handle(ex);
        } catch (IOException | RuntimeException e) {
            try {
                send(ex, 500, "application/json", StatusJson.write(Map.of("error", String.valueOf(e.getMessage()))));
            } catch (IOException ignored) {
                // the client went away
            }
        }
    }

    private void status(HttpExchange ex) throws IOException {
        if (!only(ex, "GET")) return;
        send(ex, 200, "application/json", StatusJson.write(supervisor.status()));
    }

    private void healthz(HttpExchange ex) throws IOException {
        if (!only(ex, "GET")) return;
        boolean ready = supervisor.status().ready();
        send(ex, ready ? 200 : 503, "text/plain", (ready ? "ready\n" : "not ready: " + supervisor.status().lastError() + "\n").getBytes(StandardCharsets.UTF_8));
    }

    private void metrics(HttpExchange ex) throws IOException {
        if (!only(ex, "GET")) return;
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        metrics.write(out);
        send(ex, 200, metrics.contentType(), out.toByteArray());
    }

    private void ceiling(HttpExchange ex) throws IOException {
        String method = ex.getRequestMethod();
        if (!method.equals("PUT") && !method.equals("POST")) {
            error(ex, 405, "use PUT or POST /ceilings/<device> with {\"mib\": N}");
            return;
        }
        Matcher m = CEILING.matcher(ex.getRequestURI().getPath());
        if (!m.matches()) {
            error(ex, 404, "use /ceilings/<device ordinal>, e.g. /ceilings/0");
            return;
        }
        long mib;
        try {
            JsonNode body = StatusJson.mapper().readTree(ex.getRequestBody());
            if (body == null || !body.path("mib").canConvertToLong() || body.path("mib").asLong() <= 0) {
                error(ex, 400, "the body must be {\"mib\": N} with N > 0");
                return;
            }
            mib = body.path("mib").asLong();
        } catch (IOException e) {
            error(ex, 400, "the body must be JSON {\"mib\": N}: " + e.getMessage());
            return;
        }
        try {
            SupervisorStatus s = supervisor.setCeiling(Integer.parseInt(m.group(1)), mib).get(APPLY_TIMEOUT_S, TimeUnit.SECONDS);
            send(ex, 200, "application/json", StatusJson.write(s));
        } catch (ExecutionException e) {
            boolean transientFailure = e.getCause() instanceof MpsException me
                    && (me.reason() == MpsException.Reason.DAEMON_DOWN || me.reason() == MpsException.Reason.TIMEOUT);
            if (transientFailure) error(ex, 503, "stored; applied when the daemon answers again: " + e.getCause().getMessage());
            else error(ex, 409, "rejected by the daemon: " + e.getCause().getMessage());
        } catch (TimeoutException e) {
            error(ex, 504, "the ceiling was not applied within " + APPLY_TIMEOUT_S + " s");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            error(ex, 503, "interrupted");
        }
    }

    private static boolean only(HttpExchange ex, String method) throws IOException {
        if (ex.getRequestMethod().equals(method)) return true;
        error(ex, 405, "use " + method);
        return false;
    }

    private static void error(HttpExchange ex, int code, String message) throws IOException {
        send(ex, code, "application/json", StatusJson.write(Map.of("error", message)));
    }

    private static void send(HttpExchange ex, int code, String contentType, byte[] body) throws IOException {
        ex.getResponseHeaders().set("Content-Type", contentType);
        ex.sendResponseHeaders(code, body.length == 0 ? -1 : body.length);
        try (OutputStream out = ex.getResponseBody()) {
            out.write(body);
        }
    }
}
