package io.mpshare.scheduler.http;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsExchange;
import com.sun.net.httpserver.HttpsParameters;
import com.sun.net.httpserver.HttpsServer;
import io.mpshare.core.Names;
import io.mpshare.scheduler.bind.Binder;
import io.mpshare.scheduler.cluster.StaleRoomCheck;
import io.mpshare.scheduler.metrics.ExtenderMetrics;
import io.mpshare.scheduler.preempt.NominationHold;
import io.mpshare.scheduler.preempt.PreemptVerb;
import io.mpshare.scheduler.verbs.Verbs;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.System.Logger.Level;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Objects;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.function.BooleanSupplier;
import javax.net.ssl.SSLPeerUnverifiedException;

/**
 * The extender's HTTP face on the JDK's {@code com.sun.net.httpserver} (docs/decisions/extender-http-server.md):
 * POST {@code filter}, {@code prioritize}, {@code bind}, {@code preempt}; GET {@code inspect}, {@code inspect/{node}},
 * {@code healthz}, {@code readyz}, {@code version}, {@code metrics}; all under {@code /mpshare-scheduler}.
 *
 * <p>Every verb answers 200, with failures in {@code Error}: kube-scheduler drops the body of any other
 * status ({@link VerbCalls} does the verbs). Replies are built in a per-thread buffer so the Content-Length
 * is known (no chunking).
 *
 * <p>Binds run apart from the other verbs (docs/decisions/bind-off-the-filter-workers.md): a bind waits on the
 * API server for tens of milliseconds while kube-scheduler, which binds asynchronously, already sends the next
 * pod's filter and prioritize. On the fixed pool of one worker per CPU those waited behind the binds, and the
 * serial scheduling cycle with them. So the pool's worker hands a bind exchange to a virtual thread (at most
 * {@link #MAX_BINDS} at once) and returns at once; that thread answers and closes the exchange.
 *
 * <p>Who may call the verbs ({@link HttpOptions}): in bundled mode only callers on loopback (kube-scheduler in
 * the same pod; no other pod can send from this pod's 127.0.0.1); with TLS only callers whose client
 * certificate the configured CA signed. A refused caller gets 403; the GET endpoints stay open for probes
 * and metrics scrapes.
 */
public final class ExtenderHttpServer implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(ExtenderHttpServer.class.getName());
    private static final String JSON = "application/json";
    private final VerbCalls verbCalls;
    private final HttpOptions options;
    private final Inspect inspect;
    private final ExtenderMetrics metrics;
    private final BooleanSupplier ready;
    private final String version;
    private final WireWriter writer = new WireWriter();
    private final ThreadLocal<ByteArrayOutputStream> buffers = ThreadLocal.withInitial(() -> new ByteArrayOutputStream(64 * 1024));
    private final HttpServer server;
    private final ExecutorService workers;
    /** Binds in flight at most: each waits on the API server on its own virtual thread. */
    static final int MAX_BINDS = 64;
    private final ExecutorService binds = Executors.newThreadPerTaskExecutor(Thread.ofVirtual().name("extender-bind-", 0).factory());
    private final Semaphore bindSlots = new Semaphore(MAX_BINDS);

    /**
     * What the server is made of: where it listens, who may call the verbs, and the objects behind its endpoints.
     *
     * @param threads worker threads for filter, prioritize and preempt (binds run on virtual threads of their own)
     * @param options body cap and who may call the verbs
     * @param version what {@code GET version} answers
     * @param ready   whether the cluster view has synced ({@code readyz}; until then every verb answers an Error)
     * @param recheck re-reads nodes before a filter refuses a pod everywhere ({@link StaleRoomCheck#off} for never)
     * @param preempt answers {@code preempt}, or null to offer no node; {@code hold} keeps nominated pods' room in
     *                filter, or null (both or neither)
     */
    public record Parts(InetSocketAddress address, int threads, HttpOptions options, String version, BooleanSupplier ready,
                        Verbs verbs, Binder binder, StaleRoomCheck recheck, PreemptVerb preempt, NominationHold hold,
                        Inspect inspect, ExtenderMetrics metrics) {
        public Parts {
            Objects.requireNonNull(address, "address");
            if (threads < 1) throw new IllegalArgumentException("http threads must be >= 1, got " + threads);
            Objects.requireNonNull(options, "options");
            Objects.requireNonNull(version, "version");
            Objects.requireNonNull(ready, "ready");
            Objects.requireNonNull(verbs, "verbs");
            Objects.requireNonNull(binder, "binder");
            Objects.requireNonNull(recheck, "recheck");
            if ((preempt == null) != (hold == null)) throw new IllegalArgumentException("give the preempt verb and the nomination hold together, or neither");
            Objects.requireNonNull(inspect, "inspect");
            Objects.requireNonNull(metrics, "metrics");
        }

        /** A server with default options, no stale-room re-reads and no preemption (tests and benchmarks add what they need). */
        public static Parts of(InetSocketAddress address, int threads, Verbs verbs, Binder binder, Inspect inspect, ExtenderMetrics metrics,
                               BooleanSupplier ready, String version) {
            return new Parts(address, threads, HttpOptions.defaults(), version, ready, verbs, binder, StaleRoomCheck.off(), null, null, inspect, metrics);
        }

        public Parts withOptions(HttpOptions o) {
            return new Parts(address, threads, o, version, ready, verbs, binder, recheck, preempt, hold, inspect, metrics);
        }

        public Parts withRecheck(StaleRoomCheck r) {
            return new Parts(address, threads, options, version, ready, verbs, binder, r, preempt, hold, inspect, metrics);
        }

        public Parts withPreemption(PreemptVerb p, NominationHold h) {
            return new Parts(address, threads, options, version, ready, verbs, binder, recheck, p, h, inspect, metrics);
        }
    }

    public ExtenderHttpServer(Parts parts) throws IOException {
        HttpOptions options = parts.options();
        this.verbCalls = new VerbCalls(parts.verbs(), parts.binder(), parts.metrics(), parts.ready(), parts.recheck(),
                options.maxRequestBytes(), parts.preempt(), parts.hold());
        this.options = options;
        this.inspect = parts.inspect();
        this.metrics = parts.metrics();
        this.ready = parts.ready();
        this.version = parts.version();
        // replies go out as headers + one body write: without TCP_NODELAY, Nagle can hold the body back
        // until the client's delayed ACK. The JDK server reads this property once, when it first starts.
        if (System.getProperty("sun.net.httpserver.nodelay") == null) System.setProperty("sun.net.httpserver.nodelay", "true");
        this.server = options.tls() == null ? HttpServer.create(parts.address(), 1024) : https(parts.address(), options.tls());
        this.workers = Executors.newFixedThreadPool(parts.threads(), Thread.ofPlatform().name("extender-http-", 0).daemon(true).factory());
        server.setExecutor(workers);
        server.createContext(Names.EXTENDER_PREFIX + "/", this::handle);
    }

    private static HttpsServer https(InetSocketAddress address, TlsFiles tls) throws IOException {
        HttpsServer s = HttpsServer.create(address, 1024);
        s.setHttpsConfigurator(new HttpsConfigurator(tls.context()) {
            @Override public void configure(HttpsParameters params) {
                var p = getSSLContext().getDefaultSSLParameters();
                p.setWantClientAuth(true); // probes come without a certificate; the verbs require one (allowed)
                params.setSSLParameters(p);
            }
        });
        return s;
    }

    /** May this caller use the verbs? */
    private boolean allowed(HttpExchange ex) {
        if (options.verbsFromLoopbackOnly() && !ex.getRemoteAddress().getAddress().isLoopbackAddress()) return false;
        if (ex instanceof HttpsExchange https) {
            try { return https.getSSLSession().getPeerCertificates().length > 0; }
            catch (SSLPeerUnverifiedException e) { return false; }
        }
        return options.tls() == null;
    }

    public void start() {
        server.start();
        LOG.log(Level.INFO, "extender listening on port={0} prefix={1}", String.valueOf(port()), Names.EXTENDER_PREFIX);
    }

    public int port() { return server.getAddress().getPort(); }

    private void handle(HttpExchange ex) throws IOException {
        String path = ex.getRequestURI().getPath().substring(Names.EXTENDER_PREFIX.length() + 1);
        if (path.equals(Names.EXTENDER_VERB_BIND) && ex.getRequestMethod().equals("POST") && allowed(ex)) {
            binds.execute(() -> bind(ex)); // answered and closed there; this worker goes back to filters
            return;
        }
        String method = ex.getRequestMethod();
        long t0 = System.nanoTime();
        try (ex; InputStream in = ex.getRequestBody()) {
            switch (path) {
                case Names.EXTENDER_VERB_FILTER, Names.EXTENDER_VERB_PRIORITIZE, Names.EXTENDER_VERB_BIND, Names.EXTENDER_VERB_PREEMPT -> {
                    if (!method.equals("POST")) { simple(ex, 405, JSON, "{\"Error\":\"use POST for " + path + "\"}"); return; }
                    if (!allowed(ex)) { refuse(ex, path); return; }
                    ByteArrayOutputStream buf = buffer();
                    String length = ex.getRequestHeaders().getFirst("Content-Length");
                    verbCalls.call(path, length == null ? -1 : parseLength(length), in, buf);
                    send(ex, 200, JSON, buf);
                    metrics.observe(path, System.nanoTime() - t0);
                }
                case "healthz" -> simple(ex, 200, "text/plain", "ok\n");
                case "readyz" -> {
                    boolean ok = ready.getAsBoolean();
                    simple(ex, ok ? 200 : 503, "text/plain", ok ? "ok\n" : "informers not synced yet\n");
                }
                case "version" -> simple(ex, 200, JSON, "{\"version\":\"" + version + "\",\"java\":\"" + Runtime.version() + "\"}");
                case "metrics" -> {
                    ByteArrayOutputStream buf = buffer();
                    metrics.write(buf);
                    send(ex, 200, metrics.contentType(), buf);
                }
                default -> {
                    if (path.equals("inspect") || path.startsWith("inspect/")) {
                        ByteArrayOutputStream buf = buffer();
                        inspect.write(buf, path.equals("inspect") ? null : path.substring("inspect/".length()));
                        send(ex, 200, JSON, buf);
                    } else {
                        simple(ex, 404, JSON, "{\"Error\":\"no such endpoint; verbs are filter, prioritize, bind, preempt under " + Names.EXTENDER_PREFIX + "\"}");
                    }
                }
            }
        } catch (RuntimeException e) {
            LOG.log(Level.ERROR, "extender " + path + " failed unexpectedly", e);
            metrics.failure(path, "internal");
            ByteArrayOutputStream buf = buffer();
            writer.error(buf, "mpshare extender internal error in " + path + ": " + e);
            send(ex, 200, JSON, buf);
        }
    }

    /** One bind on its own virtual thread: waits for a slot, calls the binder, answers, closes the exchange. */
    private void bind(HttpExchange ex) {
        long t0 = System.nanoTime();
        try (ex; InputStream in = ex.getRequestBody()) {
            bindSlots.acquireUninterruptibly();
            try {
                ByteArrayOutputStream buf = new ByteArrayOutputStream(512);
                try {
                    String length = ex.getRequestHeaders().getFirst("Content-Length");
                    verbCalls.bind(length == null ? -1 : parseLength(length), in, buf);
                } catch (RuntimeException e) {
                    LOG.log(Level.ERROR, "extender bind failed unexpectedly", e);
                    metrics.failure(Names.EXTENDER_VERB_BIND, "internal");
                    buf.reset();
                    writer.error(buf, "mpshare extender internal error in bind: " + e);
                }
                send(ex, 200, JSON, buf);
                metrics.observe(Names.EXTENDER_VERB_BIND, System.nanoTime() - t0);
            } finally {
                bindSlots.release();
            }
        } catch (IOException e) {
            LOG.log(Level.WARNING, "extender bind: could not answer kube-scheduler: {0}", e.getMessage());
        }
    }

    private void refuse(HttpExchange ex, String verb) throws IOException {
        metrics.failure(verb, "forbidden");
        LOG.log(Level.WARNING, "extender {0} refused to caller={1}: not kube-scheduler (not loopback, or no client certificate)", verb, ex.getRemoteAddress());
        simple(ex, 403, JSON, "{\"Error\":\"" + verb + " answers only kube-scheduler: " + (options.tls() != null
                ? "present a client certificate signed by the extender's client CA (tlsConfig in the scheduler config)"
                : "call it on 127.0.0.1 from the kube-scheduler container of this pod") + "\"}");
    }

    private static long parseLength(String s) {
        try { return Long.parseLong(s.trim()); } catch (NumberFormatException e) { return -1; }
    }

    private ByteArrayOutputStream buffer() {
        ByteArrayOutputStream b = buffers.get();
        b.reset();
        return b;
    }

    private static void send(HttpExchange ex, int status, String type, ByteArrayOutputStream body) throws IOException {
        ex.getResponseHeaders().set("Content-Type", type);
        ex.sendResponseHeaders(status, body.size() == 0 ? -1 : body.size());
        if (body.size() > 0) try (OutputStream out = ex.getResponseBody()) { body.writeTo(out); }
        body.reset();
    }

    private static void simple(HttpExchange ex, int status, String type, String body) throws IOException {
        byte[] b = body.getBytes(StandardCharsets.UTF_8);
        ex.getResponseHeaders().set("Content-Type", type);
        ex.sendResponseHeaders(status, b.length);
        try (OutputStream out = ex.getResponseBody()) { out.write(b); }
    }

    @Override public void close() {
        server.stop(0);
        workers.shutdownNow();
        binds.shutdownNow();
    }
}
