package io.mpshare.bench.extender;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * The cheapest client that speaks enough HTTP/1.1 for the benchmark: one keep-alive connection, a
 * pre-built request, Content-Length responses. It keeps the load generator's own CPU small, since it
 * shares the machine with the server it measures.
 */
final class RawHttpClient implements AutoCloseable {
    private final Socket socket;
    private final OutputStream out;
    private final InputStream in;
    private byte[] request;
    private byte[] body = new byte[1 << 20];
    private int lastLength;

    RawHttpClient(InetSocketAddress addr, String path, byte[] payload) throws IOException {
        socket = new Socket();
        socket.setTcpNoDelay(true);
        socket.connect(addr);
        out = socket.getOutputStream();
        in = new BufferedInputStream(socket.getInputStream(), 1 << 16);
        request = request(path, payload);
    }

    /** Sends {@code payload} to {@code path} on this connection and reads the whole answer ({@link #call()}). */
    int call(String path, byte[] payload) throws IOException {
        request = request(path, payload);
        return call();
    }

    private static byte[] request(String path, byte[] payload) {
        byte[] head = ("POST " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: "
                + payload.length + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII);
        byte[] request = new byte[head.length + payload.length];
        System.arraycopy(head, 0, request, 0, head.length);
        System.arraycopy(payload, 0, request, head.length, payload.length);
        return request;
    }

    /** Sends the request and reads the whole answer; returns the body length. Throws unless the status is 200. */
    int call() throws IOException {
        out.write(request);
        out.flush();
        String status = line();
        if (!status.startsWith("HTTP/1.1 200")) throw new IOException("unexpected status: " + status);
        int length = -1;
        for (String h = line(); !h.isEmpty(); h = line()) {
            int c = h.indexOf(':');
            if (c > 0 && h.substring(0, c).trim().equalsIgnoreCase("content-length")) length = Integer.parseInt(h.substring(c + 1).trim());
        }
        if (length < 0) throw new IOException("no Content-Length");
        if (length > body.length) body = new byte[length];
        int read = 0;
        while (read < length) {
            int n = in.read(body, read, length - read);
            if (n < 0) throw new IOException("connection closed");
            read += n;
        }
        lastLength = length;
        return length;
    }

    /** The body of the last answer. */
    byte[] lastBody() { return Arrays.copyOf(body, lastLength); }

    private String line() throws IOException {
        StringBuilder sb = new StringBuilder(64);
        int c;
        while ((c = in.read()) != '\n') {
            if (c < 0) throw new IOException("connection closed");
            if (c != '\r') sb.append((char) c);
        }
        return sb.toString();
    }

    @Override public void close() throws IOException { socket.close(); }
}
