package io.mpshare.host.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.mpshare.host.CallerPolicy.Caller;
import jdk.net.ExtendedSocketOptions;
import jdk.net.UnixDomainPrincipal;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.Channels;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.GroupPrincipal;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.UserPrincipal;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Serves {@link ApiHandler} on a unix domain socket: one JSON object per line in, one out, then the connection
 * closes. The socket file is created with mode 0660 (and the given group): the file system decides who may connect.
 * Each request is handled for its caller, the peer's user as the kernel reports it ({@code SO_PEERCRED}), so
 * {@link io.mpshare.host.CallerPolicy} can keep users to their own jobs. Each connection runs on a virtual thread; a
 * request line is at most 64 KiB.
 */
public final class ApiServer implements AutoCloseable {
    private static final Logger LOG = Logger.getLogger(ApiServer.class.getName());
    static final int MAX_LINE = 64 * 1024;

    private final Path socket;
    private final ApiHandler handler;
    private final ServerSocketChannel server;
    private final Thread acceptor;
    /** uid 0, to tell root callers; null when the system has no user named root. */
    private final UserPrincipal root;
    private volatile boolean closed;

    public ApiServer(Path socket, String group, ApiHandler handler) throws IOException {
        this.socket = socket;
        this.handler = handler;
        Files.createDirectories(socket.toAbsolutePath().getParent());
        Files.deleteIfExists(socket); // a socket file left by an earlier run accepts nothing
        this.server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
        server.bind(UnixDomainSocketAddress.of(socket));
        Files.setPosixFilePermissions(socket, PosixFilePermissions.fromString("rw-rw----"));
        if (group != null && !group.isBlank()) {
            GroupPrincipal g = socket.getFileSystem().getUserPrincipalLookupService().lookupPrincipalByGroupName(group);
            Files.getFileAttributeView(socket, PosixFileAttributeView.class).setGroup(g);
        }
        this.root = rootPrincipal(socket);
        this.acceptor = Thread.ofPlatform().name("host-api").daemon().unstarted(this::acceptLoop);
    }

    public ApiServer start() { acceptor.start(); return this; }

    private static UserPrincipal rootPrincipal(Path socket) {
        try {
            return socket.getFileSystem().getUserPrincipalLookupService().lookupPrincipalByName("root");
        } catch (IOException e) {
            return null;
        }
    }

    public Path socket() { return socket; }

    private void acceptLoop() {
        while (!closed) {
            try {
                SocketChannel ch = server.accept();
                Thread.ofVirtual().name("host-api-conn").start(() -> serve(ch));
            } catch (IOException e) {
                if (!closed) LOG.log(Level.WARNING, "host API: accept failed", e);
            }
        }
    }

    private void serve(SocketChannel ch) {
        try (ch; InputStream in = Channels.newInputStream(ch); OutputStream out = Channels.newOutputStream(ch)) {
            ObjectNode answer;
            try {
                UnixDomainPrincipal peer = ch.getOption(ExtendedSocketOptions.SO_PEERCRED);
                Caller caller = new Caller(peer.user(), peer.user().equals(root));
                String line = readLine(in);
                JsonNode req = ApiHandler.JSON.readTree(line);
                answer = req == null || !req.isObject() ? ApiHandler.error("BAD_REQUEST", false, "send one JSON object per line") : handler.handle(req, caller);
            } catch (IOException e) {
                answer = ApiHandler.error("BAD_REQUEST", false, "unreadable request: " + e.getMessage());
            } catch (RuntimeException e) {
                LOG.log(Level.WARNING, "host API: request failed", e);
                answer = ApiHandler.error("INTERNAL", true, "the host failed on this request: " + e);
            }
            out.write((ApiHandler.JSON.writeValueAsString(answer) + "\n").getBytes(StandardCharsets.UTF_8));
            out.flush();
        } catch (IOException e) {
            LOG.log(Level.FINE, "host API: connection ended", e);
        }
    }

    static String readLine(InputStream in) throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        int c;
        while ((c = in.read()) != -1 && c != '\n') {
            if (b.size() >= MAX_LINE) throw new IOException("request line longer than " + MAX_LINE + " bytes");
            b.write(c);
        }
        if (b.size() == 0 && c == -1) throw new IOException("no request");
        return b.toString(StandardCharsets.UTF_8);
    }

    @Override public void close() {
        closed = true;
        try {
            server.close();
            Files.deleteIfExists(socket);
        } catch (IOException e) {
            LOG.log(Level.FINE, "host API: close", e);
        }
    }
}
