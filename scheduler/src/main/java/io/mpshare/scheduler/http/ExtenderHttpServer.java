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
import io.mpshare.scheduler.requeue.Refusals;
import io.mpshare.scheduler.verbs.Verbs;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Objects;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.function.BooleanSupplier;
import java.util.logging.Level;
import java.util.logging.Logger;
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
 * <p>Implementation notes.
 * <ul>
 * <li><b>Connections on virtual threads.</b> The JDK server reads a request's line and headers on its executor's
 *     thread, before any handler can ask who is calling. So each exchange starts on a virtual thread of its own: a
 *     client that stalls mid-request holds a virtual thread (and a socket, closed after {@code maxReqTime}), never a
 *     worker. Only a caller that may use the verbs ({@link #allowed}) is handed to the fixed pool of platform workers,
 *     one per CPU, which keep their buffers warm for filter and prioritize (docs/decisions/extender-http-server.md).</li>
 * <li><b>Binds apart</b> (docs/decisions/bind-off-the-filter-workers.md): a bind waits on the API server for tens of
 *     milliseconds while kube-scheduler, which binds asynchronously, already sends the next pod's filter and
 *     prioritize; so a bind runs on a virtual thread of its own (at most {@link #MAX_BINDS} at once).</li>
 * <li><b>Who may call</b> ({@link HttpOptions}): the verbs and {@code inspect} (every tenant's bookings) answer, in
 *     bundled mode, only callers on loopback (kube-scheduler in the same pod; no other pod can send from this pod's
 *     127.0.0.1), where the server is bound anyway; with TLS only callers whose client certificate the configured CA
 *     signed. A refused caller gets 403. {@code healthz}, {@code readyz}, {@code version} and {@code metrics} answer
 *     anyone; {@link Parts#probes} serves only them on a second port, for kubelet's probes and the metrics scrape.</li>
 * </ul>
 */
public final class ExtenderHttpServer implements AutoCloseable {
    private static final Logger LOG = Logger.getLogger(ExtenderHttpServer.class.getName());
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
    private final HttpServer probeServer;
    private final ExecutorService workers;
    /** Each exchange starts here: reading a request's headers, GET endpoints, refusals. */
    private final ExecutorService connections = Executors.newThreadPerTaskExecutor(Thread.ofVirtual().name("extender-conn-", 0).factory());
    /** Binds in flight at most: each waits on the API server on its own virtual thread. */
    static final int MAX_BINDS = 64;
    private final Semaphore bindSlots = new Semaphore(MAX_BINDS);

    /**
     * What the server is made of: where it listens, who may call the verbs, and the objects behind its endpoints.
     *
     * @param threads worker threads for filter, prioritize and preempt (binds stay on their exchange's virtual thread)
     * @param options body cap and who may call the verbs
     * @param version what {@code GET version} answers
     * @param ready   whether the cluster view has synced ({@code readyz}; until then every verb answers an Error)
     * @param recheck re-reads nodes before a filter refuses a pod everywhere ({@link StaleRoomCheck#off} for never)
     * @param preempt answers {@code preempt}, or null to offer no node; {@code hold} keeps nominated pods' room in
     *                filter, or null (both or neither)
     * @param refusals told of each filter's answer, so refused pods are woken when room appears ({@link Refusals#NONE})
     * @param probes   where a second listener serves only healthz, readyz, version and metrics, or null for none
     */
    public record Parts(InetSocketAddress address, int threads, HttpOptions options, String version, BooleanSupplier ready,
                        Verbs verbs, Binder binder, StaleRoomCheck recheck, PreemptVerb preempt, NominationHold hold,
                        Inspect inspect, ExtenderMetrics metrics, Refusals refusals, InetSocketAddress probes) {
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
            Objects.requireNonNull(refusals, "refusals");
        }

        /** A server with default options, no stale-room re-reads and no preemption (tests and benchmarks add what they need). */
        public static Parts of(InetSocketAddress address, int threads, Verbs verbs, Binder binder, Inspect inspect, ExtenderMetrics metrics,
                               BooleanSupplier ready, String version) {
            return new Parts(address, threads, HttpOptions.defaults(), version, ready, verbs, binder, StaleRoomCheck.off(), null, null, inspect,
                    metrics, Refusals.NONE, null);
        }

        public Parts withOptions(HttpOptions o) {
            return new Parts(address, threads, o, version, ready, verbs, binder, recheck, preempt, hold, inspect, metrics, refusals, probes);
        }

        public Parts withRecheck(StaleRoomCheck r) {
            return new Parts(address, threads, options, version, ready, verbs, binder, r, preempt, hold, inspect, metrics, refusals, probes);
        }

        public Parts withPreemption(PreemptVerb p, NominationHold h) {
            return new Parts(address, threads, options, version, ready, verbs, binder, recheck, p, h, inspect, metrics, refusals, probes);
        }

        public Parts withRefusals(Refusals r) {
            return new Parts(address, threads, options, version, ready, verbs, binder, recheck, preempt, hold, inspect, metrics, r, probes);
        }

        public Parts withProbes(InetSocketAddress a) {
            return new Parts(address, threads, options, version, ready, verbs, binder, recheck, preempt, hold, inspect, metrics, refusals, a);
        }
    }

    public ExtenderHttpServer(Parts parts) throws IOException {
        HttpOptions options = parts.options();
        this.verbCalls = new VerbCalls(parts.verbs(), parts.binder(), parts.metrics(), parts.ready(), parts.recheck(),
                options.maxRequestBytes(), parts.preempt(), parts.hold(), parts.refusals());
        this.options = options;
        this.inspect = parts.inspect();
        this.metrics = parts.metrics();
        this.ready = parts.ready();
        this.version = parts.version();
        // replies go out as headers + one body write: without TCP_NODELAY, Nagle can hold the body back
        // until the client's delayed ACK. The JDK server reads this property once, when it first starts.
        if (System.getProperty("sun.net.httpserver.nodelay") == null) System.setProperty("sun.net.httpserver.nodelay", "true");
        // a request whose line and headers have not arrived within this many seconds is cut (read once, like nodelay)
        if (System.getProperty(MAX_REQ_TIME) == null) System.setProperty(MAX_REQ_TIME, Long.toString(DEFAULT_MAX_REQ_SECONDS));
        this.server = options.tls() == null ? HttpServer.create(parts.address(), 1024) : https(parts.address(), options.tls());
        this.workers = Executors.newFixedThreadPool(parts.threads(), Thread.ofPlatform().name("extender-http-", 0).daemon(true).factory());
        server.setExecutor(connections);
        server.createContext(Names.EXTENDER_PREFIX + "/", this::handle);
        if (parts.probes() != null) {
            probeServer = HttpServer.create(parts.probes(), 64);
            probeServer.setExecutor(connections);
            probeServer.createContext(Names.EXTENDER_PREFIX + "/", this::probe);
        } else {
            probeServer = null;
        }
    }

    /** The JDK server's limit on reading a request's line and headers, in seconds. */
    static final String MAX_REQ_TIME = "sun.net.httpserver.maxReqTime";
    /** kube-scheduler sends a request at once; a client still sending its headers after this long is not kube-scheduler. */
    static final long DEFAULT_MAX_REQ_SECONDS = 10;

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
        if (probeServer != null) probeServer.start();
        LOG.log(Level.INFO, "extender listening on address={0} port={1} prefix={2} probes={3}", new Object[] {server.getAddress().getAddress().getHostAddress(),
                String.valueOf(port()), Names.EXTENDER_PREFIX, probeServer == null ? "none" : String.valueOf(probePort())});
    }

    public int port() { return server.getAddress().getPort(); }

    /** The port of the probes' listener, -1 when there is none. */
    public int probePort() { return probeServer == null ? -1 : probeServer.getAddress().getPort(); }

    private static boolean isVerb(String path) {
        return switch (path) {
            case Names.EXTENDER_VERB_FILTER, Names.EXTENDER_VERB_PRIORITIZE, Names.EXTENDER_VERB_BIND, Names.EXTENDER_VERB_PREEMPT -> true;
            default -> false;
        };
    }

    /** On the exchange's virtual thread: who is calling is known now that the headers are read. */
    private void handle(HttpExchange ex) throws IOException {
        String path = ex.getRequestURI().getPath().substring(Names.EXTENDER_PREFIX.length() + 1);
        boolean inspecting = path.equals("inspect") || path.startsWith("inspect/");
        if (isVerb(path) || inspecting) {
            if (isVerb(path) && !ex.getRequestMethod().equals("POST")) {
                try (ex) { simple(ex, 405, JSON, "{\"Error\":\"use POST for " + path + "\"}"); }
                return;
            }
            if (!allowed(ex)) {
                try (ex) { refuse(ex, path); }
                return;
            }
            if (path.equals(Names.EXTENDER_VERB_BIND)) bind(ex); // on this virtual thread: answered and closed there
            else if (inspecting) get(ex, path);
            else workers.execute(() -> verb(ex, path)); // answered and closed on a worker
            return;
        }
        get(ex, path);
    }

    /** filter, prioritize, preempt on a platform worker, for a caller {@link #allowed} has let in. */
    private void verb(HttpExchange ex, String path) {
        long t0 = System.nanoTime();
        try (ex; InputStream in = ex.getRequestBody()) {
            try {
                ByteArrayOutputStream buf = buffer();
                String length = ex.getRequestHeaders().getFirst("Content-Length");
                verbCalls.call(path, length == null ? -1 : parseLength(length), in, buf);
                send(ex, 200, JSON, buf);
                metrics.observe(path, System.nanoTime() - t0);
            } catch (RuntimeException e) {
                internalError(ex, path, e);
            }
        } catch (IOException e) {
            LOG.log(Level.WARNING, "extender {0}: could not answer kube-scheduler: {1}", new Object[] {path, e.getMessage()});
        }
    }

    /** The GET endpoints, on the exchange's virtual thread (a buffer of their own: no worker's is at hand). */
    private void get(HttpExchange ex, String path) throws IOException {
        try (ex) {
            try {
                switch (path) {
                    case "healthz" -> simple(ex, 200, "text/plain", "ok\n");
                    case "readyz" -> {
                        boolean ok = ready.getAsBoolean();
                        simple(ex, ok ? 200 : 503, "text/plain", ok ? "ok\n" : "informers not synced yet\n");
                    }
                    case "version" -> simple(ex, 200, JSON, "{\"version\":\"" + version + "\",\"java\":\"" + Runtime.version() + "\"}");
                    case "metrics" -> {
                        ByteArrayOutputStream buf = new ByteArrayOutputStream(16 * 1024);
                        metrics.write(buf);
                        send(ex, 200, metrics.contentType(), buf);
                    }
                    default -> {
                        if (path.equals("inspect") || path.startsWith("inspect/")) {
                            ByteArrayOutputStream buf = new ByteArrayOutputStream(16 * 1024);
                            inspect.write(buf, path.equals("inspect") ? null : path.substring("inspect/".length()));
                            send(ex, 200, JSON, buf);
                        } else {
                            simple(ex, 404, JSON, "{\"Error\":\"no such endpoint; verbs are filter, prioritize, bind, preempt under " + Names.EXTENDER_PREFIX + "\"}");
                        }
                    }
                }
            } catch (RuntimeException e) {
                internalError(ex, path, e);
            }
        }
    }

    /** The probes' listener: healthz, readyz, version and metrics only. */
    private void probe(HttpExchange ex) throws IOException {
        String path = ex.getRequestURI().getPath().substring(Names.EXTENDER_PREFIX.length() + 1);
        switch (path) {
            case "healthz", "readyz", "version", "metrics" -> get(ex, path);
            default -> {
                try (ex) { simple(ex, 404, JSON, "{\"Error\":\"this port serves healthz, readyz, version and metrics only\"}"); }
            }
        }
    }

    private void internalError(HttpExchange ex, String path, RuntimeException e) throws IOException {
        LOG.log(Level.SEVERE, "extender " + path + " failed unexpectedly", e);
        metrics.failure(path, "internal");
        ByteArrayOutputStream buf = new ByteArrayOutputStream(512);
        writer.error(buf, "mpshare extender internal error in " + path + ": " + e);
        send(ex, 200, JSON, buf);
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
                    LOG.log(Level.SEVERE, "extender bind failed unexpectedly", e);
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

    private void refuse(HttpExchange ex, String path) throws IOException {
        String what = path.startsWith("inspect") ? "inspect" : path;
        metrics.failure(what, "forbidden");
        LOG.log(Level.WARNING, "extender {0} refused to caller={1}: not kube-scheduler (not loopback, or no client certificate)", new Object[] {what, ex.getRemoteAddress()});
        simple(ex, 403, JSON, "{\"Error\":\"" + what + " answers only kube-scheduler's side: " + (options.tls() != null
                ? "present a client certificate signed by the extender's client CA (tlsConfig in the scheduler config)"
                : "call it on 127.0.0.1 from the kube-scheduler container of this pod" + (what.equals("inspect") ? ", or through kubectl port-forward" : "")) + "\"}");
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
        if (probeServer != null) probeServer.stop(0);
        workers.shutdownNow();
        connections.shutdownNow();
    }
}
