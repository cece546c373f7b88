package io.mpshare.bench.deviceplugin;

import com.sun.net.httpserver.HttpServer;
import io.mpshare.deviceplugin.NodeHttp;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Kubelet's probe against the device plugin's port while N clients stall mid-request and reconnect whenever the server
 * cuts them off (what an attacker on the pod network does): how many probes get their answer within kubelet's 1 s.
 *
 * <pre>
 * java -cp ... io.mpshare.bench.deviceplugin.SlowClients fixed2 2 30      # the old server: JDK HttpServer, 2 platform workers
 * java -Dsun.net.httpserver.maxReqTime=5 -cp ... ...SlowClients fixed2 2 30   # the same with the JDK's request-time limit
 * java -cp ... io.mpshare.bench.deviceplugin.SlowClients nodehttp 64 30  # NodeHttp: a virtual thread per exchange, 10 s deadline
 * </pre>
 * Prints one line per probe (every 500 ms) and a summary line {@code SUMMARY mode=... stalled=N probes=P within_1s=K ...}.
 */
public final class SlowClients {
    private SlowClients() {}

    public static void main(String[] args) throws Exception {
        String mode = args.length > 0 ? args[0] : "nodehttp";
        int stalled = args.length > 1 ? Integer.parseInt(args[1]) : 2;
        int seconds = args.length > 2 ? Integer.parseInt(args[2]) : 30;
        AutoCloseable server;
        int port;
        switch (mode) {
            case "fixed2" -> {
                HttpServer s = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 16);
                s.setExecutor(Executors.newFixedThreadPool(2, Thread.ofPlatform().daemon().factory()));
                s.createContext("/healthz", ex -> { try (ex) { ex.sendResponseHeaders(200, 3); ex.getResponseBody().write("ok\n".getBytes()); } });
                s.start();
                server = () -> s.stop(0);
                port = s.getAddress().getPort();
            }
            case "nodehttp" -> {
                NodeHttp h = new NodeHttp(new InetSocketAddress("127.0.0.1", 0), () -> null).start();
                server = h;
                port = h.port();
            }
            default -> throw new IllegalArgumentException("mode must be fixed2 or nodehttp, not " + mode);
        }
        for (int i = 0; i < 50; i++) probe(port); // a warm server, as a running agent's is
        AtomicBoolean running = new AtomicBoolean(true);
        AtomicLong reconnects = new AtomicLong();
        for (int i = 0; i < stalled; i++) Thread.ofVirtual().start(() -> stallForever(port, running, reconnects));
        Thread.sleep(1000);
        int probes = 0, within = 0;
        double worst = 0;
        List<String> lines = new ArrayList<>();
        long end = System.nanoTime() + Duration.ofSeconds(seconds).toNanos();
        while (System.nanoTime() < end) {
            long t0 = System.nanoTime();
            String status = probe(port);
            double ms = (System.nanoTime() - t0) / 1e6;
            probes++;
            if (status.startsWith("HTTP/1.1 200")) within++;
            worst = Math.max(worst, ms);
            lines.add(String.format(Locale.ROOT, "probe %2d: %-16s %7.1f ms", probes, status, ms));
            long rest = 500_000_000L - (System.nanoTime() - t0);
            if (rest > 0) Thread.sleep(Duration.ofNanos(rest));
        }
        running.set(false);
        server.close();
        lines.forEach(System.out::println);
        System.out.printf(Locale.ROOT, "SUMMARY mode=%s maxReqTime=%s stalled=%d probes=%d within_1s=%d worst_ms=%.0f reconnects=%d java=%s%n", mode,
                System.getProperty("sun.net.httpserver.maxReqTime", "-"), stalled, probes, within, worst, reconnects.get(), Runtime.version());
    }

    /** Sends the start of a request and nothing more; when the server closes the connection, does it again. */
    private static void stallForever(int port, AtomicBoolean running, AtomicLong reconnects) {
        while (running.get()) {
            try (Socket s = new Socket("127.0.0.1", port)) {
                s.getOutputStream().write("GET /metrics HTTP/1.1\r\nHost: x\r\n".getBytes(StandardCharsets.US_ASCII));
                s.getOutputStream().flush();
                s.setSoTimeout(1000);
                while (running.get()) {
                    try {
                        if (s.getInputStream().read() < 0) break;
                    } catch (SocketTimeoutException e) {
                        // still held: keep waiting
                    }
                }
            } catch (IOException e) {
                // reset by the server: reconnect
            }
            reconnects.incrementAndGet();
        }
    }

    /** kubelet's probe: the status line within 1 s, or "timeout". */
    private static String probe(int port) {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", port), 1000);
            s.setSoTimeout(1000);
            s.getOutputStream().write("GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            InputStream in = s.getInputStream();
            StringBuilder sb = new StringBuilder();
            for (int c; (c = in.read()) >= 0 && c != '\r'; ) sb.append((char) c);
            return sb.isEmpty() ? "closed" : sb.toString();
        } catch (SocketTimeoutException e) {
            return "timeout";
        } catch (IOException e) {
            return "error " + e.getClass().getSimpleName();
        }
    }
}
