package io.mpshare.admission;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import io.fabric8.kubernetes.api.model.admission.v1.AdmissionReview;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.mpshare.admission.review.PodAdmission;
import io.mpshare.core.validation.Tenancy;

import javax.net.ssl.SSLContext;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
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
 * policy.
 *
 * <p>Implementation notes: with {@code failurePolicy: Fail}, a webhook that stops answering stops every pod CREATE of
 * the cluster, so it must keep answering whatever else reaches its port ({@link Limits}):
 * <ul>
 * <li>every exchange runs on its own virtual thread ({@link DeadlineExecutor}): a client that stalls mid-handshake or
 *     mid-request costs a stack, not a worker a real review waits for; and it is cut off at the exchange deadline;</li>
 * <li>a body above {@link Limits#maxBody} is refused with 413, by its Content-Length before a byte of it is read;</li>
 * <li>reviews are parsed and judged within a byte budget ({@link Limits#parseBudget}): fabric8's tree of a review
 *     takes about ten times its bytes, and two 8 MiB reviews at once ended a 230 MB heap. A review that cannot get its
 *     bytes within {@link Limits#parseWait} is answered 503 (the failure policy applies) instead of waiting past
 *     kube-apiserver's timeout.</li>
 * </ul>
 */
public final class WebhookServer implements AutoCloseable {
    private static final Logger LOG = Logger.getLogger(WebhookServer.class.getName());
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

    /**
     * What one client may cost the server.
     *
     * @param maxBody          the largest review read, bytes. kube-apiserver takes request bodies up to 3 MiB and stores
     *                         objects up to etcd's 1.5 MiB, so a pod's review fits; a larger body only serves an attacker
     * @param parseBudget      bytes of reviews parsed and judged at once, at least {@code maxBody}
     * @param parseWait        how long a review waits for its share of the budget before it is answered 503; under the
     *                         chart's 5 s webhook timeout
     * @param exchangeDeadline the longest one exchange may run, from its first byte to its answer: past kube-apiserver's
     *                         longest webhook timeout (30 s) no answer reaches anyone
     */
    public record Limits(int maxBody, int parseBudget, Duration parseWait, Duration exchangeDeadline) {
        public static final Limits DEFAULT = new Limits(3 << 20, 2 * (3 << 20), Duration.ofSeconds(4), Duration.ofSeconds(30));

        public Limits {
            if (maxBody <= 0 || parseBudget < maxBody)
                throw new IllegalArgumentException("need 0 < maxBody <= parseBudget, not " + maxBody + " and " + parseBudget);
            if (parseWait.isNegative()) throw new IllegalArgumentException("parseWait must not be negative: " + parseWait);
        }
    }

    private final HttpsServer server;
    private final KubernetesSerialization json;
    private final Limits limits;
    private final Semaphore parseBudget;
    private final DeadlineExecutor executor;

    public WebhookServer(InetSocketAddress address, SSLContext tls, PodAdmission admission) throws IOException {
        this(address, tls, admission, new KubernetesSerialization());
    }

    public WebhookServer(InetSocketAddress address, SSLContext tls, PodAdmission admission, KubernetesSerialization json) throws IOException {
        this(address, tls, admission, json, Limits.DEFAULT);
    }

    /**
     * Answers one review in-process (so that the first real one, under kube-apiserver's timeout, is not the slow one),
     * then binds {@code address} (port 0 picks a free one) and serves each exchange on a virtual thread of its own.
     */
    public WebhookServer(InetSocketAddress address, SSLContext tls, PodAdmission admission, KubernetesSerialization json,
                         Limits limits) throws IOException {
        this.json = json;
        this.limits = limits;
        this.parseBudget = new Semaphore(limits.parseBudget());
        json.asJson(admission.validate(json.unmarshal(WARM_UP, AdmissionReview.class)));
        json.asJson(admission.mutate(json.unmarshal(WARM_UP, AdmissionReview.class)));
        server = HttpsServer.create(address, 64);
        server.setHttpsConfigurator(new HttpsConfigurator(tls));
        server.createContext(VALIDATE_PATH, ex -> review(ex, r -> admission.validate(r, Tenancy.STRICT)));
        server.createContext(MUTATE_PATH, ex -> review(ex, r -> admission.mutate(r, Tenancy.STRICT)));
        server.createContext(VALIDATE_PATH + TRUSTED_SUFFIX, ex -> review(ex, r -> admission.validate(r, Tenancy.TRUSTED)));
        server.createContext(MUTATE_PATH + TRUSTED_SUFFIX, ex -> review(ex, r -> admission.mutate(r, Tenancy.TRUSTED)));
        server.createContext(HEALTH_PATH, ex -> send(ex, 200, "text/plain", "ok"));
        executor = new DeadlineExecutor(limits.exchangeDeadline());
        server.setExecutor(executor);
        server.start();
    }

    public int port() { return server.getAddress().getPort(); }

    /** Serves connections accepted from now on with {@code tls} (a rotated certificate); open ones keep theirs. */
    public void reloadTls(SSLContext tls) { server.setHttpsConfigurator(new HttpsConfigurator(tls)); }

    private void review(HttpExchange ex, UnaryOperator<AdmissionReview> handler) throws IOException {
        try (ex) {
            if (!"POST".equals(ex.getRequestMethod())) { send(ex, 405, "text/plain", "POST an AdmissionReview"); return; }
            byte[] body = body(ex);
            if (body == null) { send(ex, 413, "text/plain", "AdmissionReview larger than " + limits.maxBody() + " bytes"); return; }
            int share = Math.max(1, body.length);
            try {
                if (!parseBudget.tryAcquire(share, limits.parseWait().toNanos(), TimeUnit.NANOSECONDS)) {
                    send(ex, 503, "text/plain", "mpshare webhook busy: other reviews fill its " + limits.parseBudget() + " bytes of parsing; retry");
                    return;
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();   // the exchange deadline: the connection is closed
                return;
            }
            String answer;
            try {
                answer = judge(ex, body, handler);
            } finally {
                parseBudget.release(share);
            }
            if (answer != null) send(ex, 200, "application/json", answer);
        }
    }

    /** The request body, or null when it is larger than {@link Limits#maxBody} (by its Content-Length, unread, or as read). */
    private byte[] body(HttpExchange ex) throws IOException {
        String declared = ex.getRequestHeaders().getFirst("Content-Length");
        if (declared != null) {
            try {
                if (Long.parseLong(declared.trim()) > limits.maxBody()) return null;
            } catch (NumberFormatException e) {
                // not a length: the JDK server reads such a body its own way, and the cap below still holds
            }
        }
        // not closed here: closing drains the rest of the body first; the exchange's close does that after the answer is sent
        byte[] body = upTo(ex.getRequestBody(), limits.maxBody() + 1);
        return body.length > limits.maxBody() ? null : body;
    }

    /**
     * At most {@code limit} bytes, returning as soon as it has them. Not {@code readNBytes}: its last read asks for zero
     * bytes, which the JDK's chunked body answers by waiting for the next chunk's header, so a client that sent one chunk
     * past the cap and stopped would hold the exchange until its deadline instead of getting 413.
     */
    private static byte[] upTo(InputStream in, int limit) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream(Math.min(limit, 64 << 10));
        byte[] buf = new byte[64 << 10];
        for (int n; out.size() < limit && (n = in.read(buf, 0, Math.min(buf.length, limit - out.size()))) >= 0; ) out.write(buf, 0, n);
        return out.toByteArray();
    }

    /** The answer's JSON; null after sending 400 or 500 instead. */
    private String judge(HttpExchange ex, byte[] body, UnaryOperator<AdmissionReview> handler) throws IOException {
        AdmissionReview in;
        try {
            in = json.unmarshal(new String(body, StandardCharsets.UTF_8), AdmissionReview.class);
            if (in == null || in.getRequest() == null) throw new IllegalArgumentException("no request in the body");
        } catch (RuntimeException e) {
            send(ex, 400, "text/plain", "not an AdmissionReview v1: " + e.getMessage());
            return null;
        }
        try {
            return json.asJson(handler.apply(in));
        } catch (RuntimeException e) {
            LOG.log(Level.SEVERE, "review " + in.getRequest().getUid() + " failed", e);
            send(ex, 500, "text/plain", "mpshare webhook error: " + e);
            return null;
        }
    }

    private static void send(HttpExchange ex, int code, String type, String body) throws IOException {
        byte[] b = body.getBytes(StandardCharsets.UTF_8);
        ex.getResponseHeaders().set("Content-Type", type);
        ex.sendResponseHeaders(code, b.length);
        try (OutputStream out = ex.getResponseBody()) { out.write(b); }
    }

    @Override public void close() {
        server.stop(0);
        executor.close();
    }
}
