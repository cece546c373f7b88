package io.mpshare.mps;

import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.Channels;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.logging.Logger;

/**
 * The supervisor's API ({@link SupervisorApi}) on a unix socket, by default {@code /run/mpshare/<colour>/supervisor.sock}
 * ({@link Colour#supervisorSocket}): beside the pipe directory, not in it, so a client container (which mounts only
 * {@code <colour>/pipe}) cannot reach it. The file is made mode 0600 right after bind: only the user the supervisor
 * runs as (root in the chart) and root may connect; the device plugin, root on the same host path, is that user.
 *
 * <p>Implementation notes. One request per connection, each on a virtual thread; a connection must send its request
 * within {@link #REQUEST_DEADLINE} or it is closed (a client that connects and says nothing holds nothing). A socket
 * file left by an earlier run is removed, unless something still answers on it: then start fails, as two supervisors
 * of one colour must not both run. The file is removed on {@link #close}.
 */
public final class SupervisorSocketServer implements AutoCloseable {
    private static final Logger LOG = Logger.getLogger(SupervisorSocketServer.class.getName());
    /** How long the supervisor's own thread may take to answer {@code /heartbeat} before it is reported hung. */
    public static final Duration DEFAULT_HEARTBEAT_DEADLINE = Duration.ofMillis(900);
    /** The supervisor's thread this long inside a step without finishing a control command means hung. */
    public static final Duration DEFAULT_BUSY_LIMIT = Duration.ofSeconds(3);
    static final Duration REQUEST_DEADLINE = Duration.ofSeconds(5);
    private static final Set<PosixFilePermission> OWNER_ONLY = PosixFilePermissions.fromString("rw-------");

    private final Path socket;
    private final SupervisorApi api;
    private final ScheduledExecutorService deadlines = Executors.newSingleThreadScheduledExecutor(
            Thread.ofPlatform().name("supervisor-socket-deadlines").daemon().factory());
    private ServerSocketChannel server;
    private Thread acceptor;

    public SupervisorSocketServer(MpsSupervisor supervisor, SupervisorMetrics metrics, Path socket) {
        this(supervisor, metrics, socket, DEFAULT_HEARTBEAT_DEADLINE, DEFAULT_BUSY_LIMIT);
    }

    /** @see SupervisorApi the heartbeat's deadline and busy limit */
    public SupervisorSocketServer(MpsSupervisor supervisor, SupervisorMetrics metrics, Path socket, Duration heartbeatDeadline, Duration busyLimit) {
        this(supervisor, supervisor, metrics, socket, heartbeatDeadline, busyLimit);
    }

    /** {@code /domains} served from {@code domains} instead of the supervisor's own (a test's {@code fake.FakeDomains}). */
    public SupervisorSocketServer(MpsSupervisor supervisor, DomainService domains, SupervisorMetrics metrics, Path socket) {
        this(supervisor, domains, metrics, socket, DEFAULT_HEARTBEAT_DEADLINE, DEFAULT_BUSY_LIMIT);
    }

    private SupervisorSocketServer(MpsSupervisor supervisor, DomainService domains, SupervisorMetrics metrics, Path socket,
                                   Duration heartbeatDeadline, Duration busyLimit) {
        this.socket = socket;
        this.api = new SupervisorApi(supervisor, domains, metrics, heartbeatDeadline, busyLimit);
    }

    public Path socket() { return socket; }

    /** Binds the socket (mode 0600) and starts accepting; throws with a one-line reason when it cannot. */
    public SupervisorSocketServer start() throws IOException {
        Files.createDirectories(socket.getParent());
        removeStale();
        server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
        server.bind(UnixDomainSocketAddress.of(socket), 16);
        Files.setPosixFilePermissions(socket, OWNER_ONLY);
        acceptor = Thread.ofPlatform().name("supervisor-socket").daemon().start(this::acceptLoop);
        return this;
    }

    private void removeStale() throws IOException {
        if (!Files.exists(socket)) return;
        boolean answers;
        try (SocketChannel probe = SocketChannel.open(UnixDomainSocketAddress.of(socket))) {
            answers = true;
        } catch (IOException e) {
            answers = false;
        }
        if (answers) throw new IOException("another supervisor already serves " + socket + ": stop it first (one supervisor per colour)");
        Files.deleteIfExists(socket); // left by an earlier run: nothing answers on it
    }

    private void acceptLoop() {
        while (server.isOpen()) {
            try {
                SocketChannel c = server.accept();
                Thread.ofVirtual().name("supervisor-socket-conn").start(() -> serve(c));
            } catch (ClosedChannelException e) {
                return;
            } catch (IOException e) {
                LOG.warning("supervisor socket " + socket + ": accept failed: " + e.getMessage());
            }
        }
    }

    private void serve(SocketChannel c) {
        try (c) {
            ScheduledFuture<?> deadline = deadlines.schedule(() -> closeQuietly(c), REQUEST_DEADLINE.toMillis(), TimeUnit.MILLISECONDS);
            UnixHttp.Request req;
            try {
                req = UnixHttp.readRequest(Channels.newInputStream(c));
            } catch (IOException e) {
                if (c.isOpen()) UnixHttp.writeResponse(Channels.newOutputStream(c), SupervisorApi.error(400, e.getMessage()));
                return;
            } finally {
                deadline.cancel(false);
            }
            UnixHttp.writeResponse(Channels.newOutputStream(c), api.handle(req.method(), req.path(), req.body()));
        } catch (IOException e) {
            LOG.fine(() -> "supervisor socket: a client went away: " + e.getMessage());
        }
    }

    private static void closeQuietly(SocketChannel c) {
        try {
            c.close();
        } catch (IOException ignored) {
            // closing is all we wanted
        }
    }

    @Override public void close() {
        try {
            if (server != null) server.close();
            Files.deleteIfExists(socket);
        } catch (IOException e) {
            LOG.warning("cannot remove the supervisor socket " + socket + ": " + e.getMessage());
        }
        deadlines.shutdownNow();
        if (acceptor != null) acceptor.interrupt();
    }
}
