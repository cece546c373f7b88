package io.mpshare.admission;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import io.fabric8.kubernetes.api.model.admission.v1.AdmissionReview;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.mpshare.admission.review.PodAdmission;
import io.mpshare.core.validation.Tenancy;

import javax.net.ssl.SSLContext;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutorService;
import java.util.function.UnaryOperator;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * HTTPS endpoint of the webhook (JDK {@code HttpsServer}): {@code POST /validate} and {@code POST /mutate} take
 * an AdmissionReview v1 and answer one for a strict namespace, {@code /validate/trusted} and {@code /mutate/trusted}
 * for a trusted one (the webhook configuration chooses by the namespace's {@code mpshare.io/tenancy} label, so the
 * tenancy never depends on the webhook's view of the namespaces); {@code GET /healthz} answers "ok" for the probes. Any other path under
 * {@code /validate} is judged strictly.
 *
 * <p>A review that cannot be read gets 400 with the reason: kube-apiserver then applies the webhook's failure
 * policy. Bodies above {@link #MAX_BODY} are refused (the API server sends at most a few MiB of pod).
 */
public final class WebhookServer implements AutoCloseable {
    private static final Logger LOG = Logger.getLogger(WebhookServer.class.getName());
    static final int MAX_BODY = 8 << 20;
    public static final String VALIDATE_PATH = "/validate";
    public static final String MUTATE_PATH = "/mutate";
    public static final String HEALTH_PATH = "/healthz";
    /** Appended to {@link #VALIDATE_PATH} and {@link #MUTATE_PATH}: the configuration's entry for trusted namespaces calls these. */
    public static final String TRUSTED_SUFFIX = "/trusted";

    /** A pod review answered once before serving: fabric8's first read of a review loads its model (seconds). */
    private static final String WARM_UP = "{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":\"AdmissionReview\",\"request\":{\"uid\":\"warm-up\","
            + "\"kind\":{\"group\":\"\",\"version\":\"v1\",\"kind\":\"Pod\"},\"namespace\":\"default\",\"operation\":\"CREATE\","
            + "\"object\":{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"warm-up\"},\"spec\":{\"containers\":[{\"name\":\"c\","
            + "\"resources\":{\"limits\":{\"aliyun.com/gpu-mem\":\"1\"}}}]}}}}";

    private final HttpsServer server;
    private final KubernetesSerialization json;

    public WebhookServer(InetSocketAddress address, SSLContext tls, PodAdmission admission, ExecutorService executor) throws IOException {
        this(address, tls, admission, executor, new KubernetesSerialization());
    }

    /**
     * Answers one review in-process (so that the first real one, under kube-apiserver's timeout, is not the slow one),
     * then binds {@code address} (port 0 picks a free one) and serves on {@code executor}.
     */
    public WebhookServer(InetSocketAddress address, SSLContext tls, PodAdmission admission, ExecutorService executor,
                         KubernetesSerialization json) throws IOException {
        this.json = json;
        json.asJson(admission.validate(json.unmarshal(WARM_UP, AdmissionReview.class)));
        json.asJson(admission.mutate(json.unmarshal(WARM_UP, AdmissionReview.class)));
        server = HttpsServer.create(address, 64);
        server.setHttpsConfigurator(new HttpsConfigurator(tls));
        server.createContext(VALIDATE_PATH, ex -> review(ex, r -> admission.validate(r, Tenancy.STRICT)));
        server.createContext(MUTATE_PATH, ex -> review(ex, r -> admission.mutate(r, Tenancy.STRICT)));
        server.createContext(VALIDATE_PATH + TRUSTED_SUFFIX, ex -> review(ex, r -> admission.validate(r, Tenancy.TRUSTED)));
        server.createContext(MUTATE_PATH + TRUSTED_SUFFIX, ex -> review(ex, r -> admission.mutate(r, Tenancy.TRUSTED)));
        server.createContext(HEALTH_PATH, ex -> send(ex, 200, "text/plain", "ok"));
        server.setExecutor(executor);
        server.start();
    }

    public int port() { return server.getAddress().getPort(); }

    /** Serves connections accepted from now on with {@code tls} (a rotated certificate); open ones keep theirs. */
    public void reloadTls(SSLContext tls) { server.setHttpsConfigurator(new HttpsConfigurator(tls)); }

    private void review(HttpExchange ex, UnaryOperator<AdmissionReview> handler) throws IOException {
        try (ex) {
            if (!"POST".equals(ex.getRequestMethod())) { send(ex, 405, "text/plain", "POST an AdmissionReview"); return; }
            byte[] body;
            try (InputStream in = ex.getRequestBody()) { body = in.readNBytes(MAX_BODY + 1); }
            if (body.length > MAX_BODY) { send(ex, 413, "text/plain", "AdmissionReview larger than " + MAX_BODY + " bytes"); return; }
            AdmissionReview in;
            try {
                in = json.unmarshal(new String(body, StandardCharsets.UTF_8), AdmissionReview.class);
                if (in == null || in.getRequest() == null) throw new IllegalArgumentException("no request in the body");
            } catch (RuntimeException e) {
                send(ex, 400, "text/plain", "not an AdmissionReview v1: " + e.getMessage());
                return;
            }
            AdmissionReview out;
            try {
                out = handler.apply(in);
            } catch (RuntimeException e) {
                LOG.log(Level.SEVERE, "review " + in.getRequest().getUid() + " failed", e);
                send(ex, 500, "text/plain", "mpshare webhook error: " + e);
                return;
            }
            send(ex, 200, "application/json", json.asJson(out));
        }
    }

    private static void send(HttpExchange ex, int code, String type, String body) throws IOException {
        byte[] b = body.getBytes(StandardCharsets.UTF_8);
        ex.getResponseHeaders().set("Content-Type", type);
        ex.sendResponseHeaders(code, b.length);
        try (OutputStream out = ex.getResponseBody()) { out.write(b); }
    }

    @Override public void close() { server.stop(0); }
}
