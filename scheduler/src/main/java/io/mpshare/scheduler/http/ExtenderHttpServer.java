package io.mpshare.scheduler.http;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.mpshare.core.Names;
import io.mpshare.scheduler.Verbs;
import io.mpshare.scheduler.Verbs.FilterAnswer;
import io.mpshare.scheduler.bind.BindOutcome;
import io.mpshare.scheduler.bind.Binder;
import io.mpshare.scheduler.metrics.ExtenderMetrics;
import io.mpshare.scheduler.preempt.NominationHold;
import io.mpshare.scheduler.preempt.PreemptVerb;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.System.Logger.Level;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.BooleanSupplier;

/**
 * The extender's HTTP face on the JDK's {@code com.sun.net.httpserver} (docs/decisions/extender-http-server.md):
 * POST {@code filter}, {@code prioritize}, {@code bind}, {@code preempt}; GET {@code inspect}, {@code inspect/{node}},
 * {@code healthz}, {@code readyz}, {@code version}, {@code metrics}; all under {@code /mpshare-scheduler}.
 *
 * <p>Every verb answers 200, with failures in {@code Error}: kube-scheduler drops the body of any other
 * status. Bodies are read by {@link WireReader} straight from the socket stream and replies are
 * built in a per-thread buffer so the Content-Length is known (no chunking).
 */
public final class ExtenderHttpServer implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(ExtenderHttpServer.class.getName());
    private static final String JSON = "application/json";
    private final Verbs verbs;
    private final Binder binder;
    private final Inspect inspect;
    private final ExtenderMetrics metrics;
    private final BooleanSupplier ready;
    private final String version;
    private final WireReader reader = new WireReader();
    private final WireWriter writer = new WireWriter();
    private final ThreadLocal<ByteArrayOutputStream> buffers = ThreadLocal.withInitial(() -> new ByteArrayOutputStream(64 * 1024));
    private final HttpServer server;
    private final ExecutorService workers;
    /** The preempt verb and the filter's hold on nominated pods' room; null when preemption is not served. */
    private final PreemptVerb preempt;
    private final NominationHold hold;

    public ExtenderHttpServer(InetSocketAddress address, int threads, Verbs verbs, Binder binder, Inspect inspect,
                              ExtenderMetrics metrics, BooleanSupplier ready, String version) throws IOException {
        this(address, threads, verbs, binder, inspect, metrics, ready, version, null, null);
    }

    /** @param preempt answers {@code preempt}; {@code hold} keeps nominated pods' room in filter (both or neither) */
    public ExtenderHttpServer(InetSocketAddress address, int threads, Verbs verbs, Binder binder, Inspect inspect,
                              ExtenderMetrics metrics, BooleanSupplier ready, String version,
                              PreemptVerb preempt, NominationHold hold) throws IOException {
        this.preempt = preempt;
        this.hold = hold;
        this.verbs = verbs;
        this.binder = binder;
        this.inspect = inspect;
        this.metrics = metrics;
        this.ready = ready;
        this.version = version;
        // replies go out as headers + one body write: without TCP_NODELAY, Nagle can hold the body back
        // until the client's delayed ACK. The JDK server reads this property once, when it first starts.
        if (System.getProperty("sun.net.httpserver.nodelay") == null) System.setProperty("sun.net.httpserver.nodelay", "true");
        this.server = HttpServer.create(address, 1024);
        this.workers = Executors.newFixedThreadPool(threads, Thread.ofPlatform().name("extender-http-", 0).daemon(true).factory());
        server.setExecutor(workers);
        server.createContext(Names.EXTENDER_PREFIX + "/", this::handle);
    }

    public void start() {
        server.start();
        LOG.log(Level.INFO, "extender listening on port={0} prefix={1}", String.valueOf(port()), Names.EXTENDER_PREFIX);
    }

    public int port() { return server.getAddress().getPort(); }

    private void handle(HttpExchange ex) throws IOException {
        String path = ex.getRequestURI().getPath().substring(Names.EXTENDER_PREFIX.length() + 1);
        String method = ex.getRequestMethod();
        long t0 = System.nanoTime();
        try (ex; InputStream in = ex.getRequestBody()) {
            switch (path) {
                case "filter", "prioritize", "bind", Names.EXTENDER_VERB_PREEMPT -> {
                    if (!method.equals("POST")) { simple(ex, 405, JSON, "{\"Error\":\"use POST for " + path + "\"}"); return; }
                    ByteArrayOutputStream buf = buffer();
                    switch (path) {
                        case "filter" -> filter(in, buf);
                        case "prioritize" -> prioritize(in, buf);
                        case Names.EXTENDER_VERB_PREEMPT -> preempt(in, buf);
                        default -> bind(in, buf);
                    }
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

    private void filter(InputStream in, ByteArrayOutputStream buf) throws IOException {
        ExtenderArgs args;
        try {
            Body body = bodies.get();
            body.readFrom(in);
            args = reader.extenderArgs(body.bytes, body.length);
        } catch (WireException e) {
            metrics.failure("filter", "bad_request");
            writer.filterResult(buf, new FilterAnswer(List.of(), java.util.Map.of(), java.util.Map.of(), e.getMessage()), null);
            return;
        }
        RawNames raw = args.rawNames();
        if (raw != null) { // the common case: names looked up and echoed as bytes
            Verbs.IndexedFilterAnswer a = verbs.filter(args.pod(), raw.buf(), raw.off(), raw.len(), raw.hash(), raw.count());
            if (a.fitCount() > 0 && hold != null && hold.active() && verbs.need(args.pod()) instanceof Verbs.Need.Gpu g)
                a = hold.apply(g.pod(), g.demand(), a, raw.buf(), raw.off(), raw.len());
            count(args, a.error(), a.fitCount() == 0 && raw.count() > 0);
            writer.filterResult(buf, a, raw);
            return;
        }
        FilterAnswer a = verbs.filter(args.pod(), args.nodeNames());
        if (!a.fits().isEmpty() && hold != null && hold.active() && verbs.need(args.pod()) instanceof Verbs.Need.Gpu g)
            a = hold.apply(g.pod(), g.demand(), a);
        count(args, a.error(), a.fits().isEmpty() && !args.nodeNames().isEmpty());
        writer.filterResult(buf, a, args.rawNodes());
    }

    private void count(ExtenderArgs args, String error, boolean noneFits) {
        if (!error.isEmpty()) {
            metrics.failure("filter", "bad_pod");
            LOG.log(Level.INFO, "filter pod={0}/{1} error={2}", args.pod().namespace(), args.pod().name(), error);
        } else if (noneFits) {
            metrics.failure("filter", "no_node_fits");
        }
    }

    /** A worker's request body buffer, grown as needed and kept (the workers are a small fixed pool). */
    private static final class Body {
        byte[] bytes = new byte[128 * 1024];
        int length;

        void readFrom(InputStream in) throws IOException {
            length = 0;
            int r;
            while ((r = in.read(bytes, length, bytes.length - length)) >= 0) {
                length += r;
                if (length == bytes.length) bytes = java.util.Arrays.copyOf(bytes, bytes.length * 2);
            }
        }
    }

    private final ThreadLocal<Body> bodies = ThreadLocal.withInitial(Body::new);

    private void prioritize(InputStream in, ByteArrayOutputStream buf) {
        try {
            ExtenderArgs args = reader.extenderArgs(in);
            Verbs.PrioritizeAnswer a = verbs.prioritize(args.pod(), args.nodeNames());
            if (!a.error().isEmpty()) {
                metrics.failure("prioritize", "bad_pod");
                LOG.log(Level.INFO, "prioritize pod={0}/{1} error={2}", args.pod().namespace(), args.pod().name(), a.error());
            }
            writer.priorities(buf, a.scores());
        } catch (WireException e) {
            metrics.failure("prioritize", "bad_request");
            LOG.log(Level.INFO, "prioritize error={0}", e.getMessage());
            writer.priorities(buf, List.of());
        }
    }

    /** kube-scheduler's preemptVerb (io.mpshare.scheduler.preempt); without one configured, no node is offered. */
    private void preempt(InputStream in, ByteArrayOutputStream buf) throws IOException {
        if (preempt == null) { buf.write("{\"NodeNameToMetaVictims\":{}}".getBytes(java.nio.charset.StandardCharsets.UTF_8)); return; }
        preempt.answer(in, buf);
    }

    private void bind(InputStream in, ByteArrayOutputStream buf) {
        BindingArgs args;
        try {
            args = reader.bindingArgs(in);
        } catch (WireException e) {
            metrics.failure("bind", "bad_request");
            writer.error(buf, e.getMessage());
            return;
        }
        switch (binder.bind(args.podNamespace(), args.podName(), args.podUid(), args.node())) {
            case BindOutcome.Bound b -> writer.error(buf, "");
            case BindOutcome.Failed f -> {
                metrics.failure("bind", f.reason());
                writer.error(buf, f.message());
            }
        }
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
        byte[] b = body.getBytes(java.nio.charset.StandardCharsets.UTF_8);
        ex.getResponseHeaders().set("Content-Type", type);
        ex.sendResponseHeaders(status, b.length);
        try (OutputStream out = ex.getResponseBody()) { out.write(b); }
    }

    @Override public void close() {
        server.stop(0);
        workers.shutdownNow();
    }
}
