package io.mpshare.deviceplugin.policing;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.model.registry.PrometheusRegistry;

import java.io.ByteArrayOutputStream;
import java.io.IOException;

/** {@code GET /metrics}: the Prometheus text exposition of the node agent's registry (the policer's metrics). */
public final class MetricsHandler implements HttpHandler {
    private final PrometheusRegistry registry;
    private final PrometheusTextFormatWriter writer = PrometheusTextFormatWriter.create();

    public MetricsHandler(PrometheusRegistry registry) { this.registry = registry; }

    @Override public void handle(HttpExchange ex) throws IOException {
        try (ex) {
            if (!"GET".equals(ex.getRequestMethod()) && !"HEAD".equals(ex.getRequestMethod())) {
                ex.sendResponseHeaders(405, -1);
                return;
            }
            var out = new ByteArrayOutputStream(16 << 10);
            writer.write(out, registry.scrape());
            byte[] body = out.toByteArray();
            ex.getResponseHeaders().set("Content-Type", writer.getContentType());
            ex.sendResponseHeaders(200, "HEAD".equals(ex.getRequestMethod()) ? -1 : body.length);
            if (!"HEAD".equals(ex.getRequestMethod())) ex.getResponseBody().write(body);
        }
    }
}
