package io.mpshare.mps;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.channels.Channels;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * The few bytes of HTTP/1.1 the supervisor's unix socket speaks: one request per connection, {@code Content-Length}
 * bodies only, {@code Connection: close}. Enough for {@link SupervisorStatusClient} and for
 * {@code curl --unix-socket /run/mpshare/blue/supervisor.sock http://localhost/status}; nothing else (no chunking,
 * no keep-alive, no TLS: the socket's file mode is the access control).
 */
final class UnixHttp {
    private UnixHttp() {}

    /** Largest request head or body read (a ceiling request is a few dozen bytes). */
    static final int MAX_BYTES = 64 * 1024;

    record Request(String method, String path, byte[] body) {}

    record Response(int code, String contentType, byte[] body) {}

    /** Reads one request; throws {@link IOException} with a short reason on anything malformed or too large. */
    static Request readRequest(InputStream in) throws IOException {
        String head = readHead(in);
        String[] lines = head.split("\r\n");
        String[] first = lines[0].split(" ");
        if (first.length != 3 || !first[2].startsWith("HTTP/1.")) throw new IOException("not an HTTP/1.x request line: " + lines[0]);
        int length = contentLength(lines);
        String path = first[1];
        int q = path.indexOf('?');
        return new Request(first[0], q < 0 ? path : path.substring(0, q), in.readNBytes(length));
    }

    static void writeResponse(OutputStream out, Response r) throws IOException {
        String head = "HTTP/1.1 " + r.code() + " " + reason(r.code()) + "\r\nContent-Type: " + r.contentType()
                + "\r\nContent-Length: " + r.body().length + "\r\nConnection: close\r\n\r\n";
        out.write(head.getBytes(StandardCharsets.US_ASCII));
        out.write(r.body());
        out.flush();
    }

    /** The client side: sends one request on a connected channel and reads the whole answer (the server closes). */
    static Response exchange(SocketChannel channel, String method, String path, byte[] body) throws IOException {
        OutputStream out = Channels.newOutputStream(channel);
        String head = method + " " + path + " HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: "
                + body.length + "\r\nConnection: close\r\n\r\n";
        out.write(head.getBytes(StandardCharsets.US_ASCII));
        out.write(body);
        out.flush();
        InputStream in = Channels.newInputStream(channel);
        String[] lines = readHead(in).split("\r\n");
        String[] status = lines[0].split(" ", 3);
        if (status.length < 2 || !status[0].startsWith("HTTP/1.")) throw new IOException("not an HTTP/1.x status line: " + lines[0]);
        int code;
        try {
            code = Integer.parseInt(status[1]);
        } catch (NumberFormatException e) {
            throw new IOException("bad status code: " + lines[0]);
        }
        String type = "application/octet-stream";
        for (String l : lines) if (l.toLowerCase(Locale.ROOT).startsWith("content-type:")) type = l.substring(13).strip();
        return new Response(code, type, in.readNBytes(contentLength(lines)));
    }

    private static String readHead(InputStream in) throws IOException {
        ByteArrayOutputStream head = new ByteArrayOutputStream();
        int matched = 0; // of \r\n\r\n
        while (matched < 4) {
            int b = in.read();
            if (b < 0) throw new IOException(head.size() == 0 ? "connection closed before a request" : "connection closed inside the header");
            head.write(b);
            if (head.size() > MAX_BYTES) throw new IOException("header longer than " + MAX_BYTES + " bytes");
            matched = (b == '\r' && (matched == 0 || matched == 2)) || (b == '\n' && (matched == 1 || matched == 3)) ? matched + 1
                    : (b == '\r' ? 1 : 0);
        }
        return head.toString(StandardCharsets.ISO_8859_1);
    }

    private static int contentLength(String[] lines) throws IOException {
        for (String l : lines) {
            if (!l.toLowerCase(Locale.ROOT).startsWith("content-length:")) continue;
            try {
                int n = Integer.parseInt(l.substring(15).strip());
                if (n < 0 || n > MAX_BYTES) throw new IOException("Content-Length " + n + " outside 0.." + MAX_BYTES);
                return n;
            } catch (NumberFormatException e) {
                throw new IOException("bad Content-Length: " + l);
            }
        }
        return 0;
    }

    private static String reason(int code) {
        return switch (code) {
            case 200 -> "OK";
            case 400 -> "Bad Request";
            case 404 -> "Not Found";
            case 405 -> "Method Not Allowed";
            case 409 -> "Conflict";
            case 503 -> "Service Unavailable";
            case 504 -> "Gateway Timeout";
            default -> "Status";
        };
    }
}
