package io.mpshare.host.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.mpshare.core.Names;

import java.io.IOException;
import java.io.InputStream;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/** The client side of the host API: one request per connection. Errors name what to do. */
public final class HostClient {
    /** Where {@code mpshare host} serves its API and {@code run} and {@code ps} find it, unless told otherwise. */
    public static final String DEFAULT_SOCKET = Names.RUN_DIR + "/host.sock";

    private final Path socket;

    public HostClient(Path socket) { this.socket = socket; }

    public Path socket() { return socket; }

    /** The host could not be reached at all (not running, no permission): the message says which. */
    public static final class Unreachable extends IOException {
        public Unreachable(String message, Throwable cause) { super(message, cause); }
    }

    public JsonNode call(ObjectNode request) throws IOException {
        if (!Files.exists(socket))
            throw new Unreachable("mpshare host is not running: no socket at " + socket + " (start it with 'mpshare host', or pass --socket)", null);
        SocketChannel ch;
        try {
            ch = SocketChannel.open(StandardProtocolFamily.UNIX);
            ch.connect(UnixDomainSocketAddress.of(socket));
        } catch (AccessDeniedException e) {
            throw new Unreachable("no permission to use " + socket + ": ask an administrator to add you to its group (docs/host-mode.md)", e);
        } catch (IOException e) {
            String m = String.valueOf(e.getMessage());
            if (m.contains("ermission")) throw new Unreachable("no permission to use " + socket + ": ask an administrator to add you to its group (docs/host-mode.md)", e);
            throw new Unreachable("mpshare host does not answer on " + socket + " (" + m + "): is it running?", e);
        }
        try (ch; InputStream in = Channels.newInputStream(ch)) {
            ByteBuffer b = ByteBuffer.wrap((ApiHandler.JSON.writeValueAsString(request) + "\n").getBytes(StandardCharsets.UTF_8));
            while (b.hasRemaining()) ch.write(b);
            return ApiHandler.JSON.readTree(ApiServer.readLine(in));
        }
    }

    public JsonNode allocate(long memMib, int core, int gpuCount, long pid, String user, List<String> command) throws IOException {
        ObjectNode r = ApiHandler.JSON.createObjectNode().put("op", "allocate").put("memMib", memMib).put("core", core)
                .put("gpuCount", gpuCount).put("pid", pid).put("user", user);
        r.set("command", ApiHandler.JSON.valueToTree(command));
        return call(r);
    }

    public JsonNode started(String job, long pid) throws IOException {
        return call(ApiHandler.JSON.createObjectNode().put("op", "started").put("job", job).put("pid", pid));
    }

    public JsonNode release(String job) throws IOException {
        return call(ApiHandler.JSON.createObjectNode().put("op", "release").put("job", job));
    }

    public JsonNode ps() throws IOException { return call(ApiHandler.JSON.createObjectNode().put("op", "ps")); }

    public static Map<String, String> env(JsonNode answer) { return ApiHandler.envOf(answer); }
}
