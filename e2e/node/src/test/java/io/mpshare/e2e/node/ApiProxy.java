package io.mpshare.e2e.node;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A TCP relay between kubelet and the API server (TLS passes through untouched) that a scenario can close: while
 * {@link #cut} holds, new connections are refused and open ones dropped, so kubelet runs without the API server
 * (it still serves its device-plugin and pod-resources sockets). Used to let the device plugin register with a
 * freshly started kubelet before kubelet learns its pods, so those pods are admitted in one batch.
 */
final class ApiProxy implements AutoCloseable {
    private final ServerSocket server;
    private final InetSocketAddress upstream;
    private final Set<Socket> open = ConcurrentHashMap.newKeySet();
    private volatile boolean cut;

    ApiProxy(String upstreamUrl) throws IOException {
        URI u = URI.create(upstreamUrl);
        this.upstream = new InetSocketAddress(u.getHost(), u.getPort());
        this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread.ofPlatform().daemon().name("e2e-api-proxy").start(this::acceptLoop);
    }

    String url() { return "https://127.0.0.1:" + server.getLocalPort(); }

    void cut(boolean on) {
        cut = on;
        if (on) for (Socket s : open) closeQuietly(s);
    }

    private void acceptLoop() {
        while (!server.isClosed()) {
            try {
                Socket in = server.accept();
                if (cut) {
                    in.close();
                    continue;
                }
                Socket out = new Socket(upstream.getAddress(), upstream.getPort());
                open.add(in);
                open.add(out);
                Thread.ofVirtual().start(() -> pump(in, out));
                Thread.ofVirtual().start(() -> pump(out, in));
            } catch (IOException e) {
                if (server.isClosed()) return;
            }
        }
    }

    private void pump(Socket from, Socket to) {
        try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
            in.transferTo(out);
        } catch (IOException closed) {
            // either side went away
        } finally {
            closeQuietly(from);
            closeQuietly(to);
        }
    }

    private void closeQuietly(Socket s) {
        open.remove(s);
        try {
            s.close();
        } catch (IOException ignored) {
            // already closed
        }
    }

    @Override public void close() throws IOException {
        server.close();
        for (Socket s : open) closeQuietly(s);
    }
}
