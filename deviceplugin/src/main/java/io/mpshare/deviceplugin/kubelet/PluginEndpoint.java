package io.mpshare.deviceplugin.kubelet;

import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.netty.shaded.io.netty.channel.EventLoopGroup;
import io.mpshare.core.Names;
import io.mpshare.deviceplugin.api.v1beta1.RegisterRequest;
import io.mpshare.deviceplugin.api.v1beta1.RegistrationGrpc;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.Objects;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Serves one {@link ResourceServer} on {@code <plugin dir>/<socket name>} and keeps it registered with kubelet.
 *
 * <p>Implementation notes. kubelet, when it restarts, deletes every socket in the plugin directory and creates a
 * new {@code kubelet.sock}. {@link #ensure()} (run every {@code period}, 1 s by default) therefore checks two things:
 * our own socket file still exists (else: serve again on a fresh socket), and the kubelet socket is the one we
 * registered with (same file key, i.e. device and inode; else: register again). A failed registration is retried
 * on the next check, so a kubelet that is not up yet is simply waited for. ensure() is serialised by the
 * endpoint's lock; nothing else touches the gRPC server.
 */
public final class PluginEndpoint implements AutoCloseable {
    private static final Logger LOG = Logger.getLogger(PluginEndpoint.class.getName());
    public static final String API_VERSION = "v1beta1";

    private final ResourceServer service;
    private final Path socket;
    private final Path kubeletSocket;
    private final EventLoopGroup group;
    /** How often a missing kubelet socket is logged again. */
    public static final Duration MISSING_WARN_EVERY = Duration.ofSeconds(30);

    private final InstantSource clock;
    private Server server;
    private Object registeredWith;
    private int registrations;
    private Instant missingWarned;

    public PluginEndpoint(ResourceServer service, Path pluginDir, String socketName, Path kubeletSocket, EventLoopGroup group) {
        this(service, pluginDir, socketName, kubeletSocket, group, InstantSource.system());
    }

    public PluginEndpoint(ResourceServer service, Path pluginDir, String socketName, Path kubeletSocket, EventLoopGroup group, InstantSource clock) {
        this.service = service;
        this.socket = pluginDir.resolve(socketName);
        this.kubeletSocket = kubeletSocket;
        this.group = group;
        this.clock = clock;
    }

    public Path socket() { return socket; }

    /** How many times registration succeeded (first one included). */
    public synchronized int registrations() { return registrations; }

    /** Serves if the socket is gone, registers if kubelet is new; returns whether we are registered now. */
    public synchronized boolean ensure() {
        if (server == null || server.isShutdown() || !Files.exists(socket)) {
            restartServer();
            registeredWith = null;
        }
        if (server == null) return false;
        Object key = fileKey(kubeletSocket);
        if (key == null) {
            warnMissing();
            return false;
        }
        missingWarned = null;
        if (!Objects.equals(key, registeredWith) && register()) registeredWith = key;
        return registeredWith != null;
    }

    public void start(ScheduledExecutorService exec, Duration period) {
        exec.scheduleWithFixedDelay(() -> {
            try { ensure(); } catch (RuntimeException e) { LOG.log(Level.WARNING, "plugin endpoint check failed for " + socket, e); }
        }, 0, period.toMillis(), TimeUnit.MILLISECONDS);
    }

    private void restartServer() {
        service.closeStreams();
        UnixSockets.shutdown(server);
        server = null;
        try {
            Files.createDirectories(socket.getParent());
            server = UnixSockets.serve(socket, group, service.direct(), service);
            LOG.info(service.handler().resourceName() + ": serving the device plugin API on " + socket);
        } catch (IOException | RuntimeException e) {
            LOG.log(Level.WARNING, "cannot serve on " + socket + ": " + e.getMessage(), e);
        }
    }

    /** At once, then every {@link #MISSING_WARN_EVERY} while kubelet's socket is absent. */
    private void warnMissing() {
        Instant now = clock.instant();
        if (missingWarned != null && now.isBefore(missingWarned.plus(MISSING_WARN_EVERY))) return;
        missingWarned = now;
        LOG.warning(service.handler().resourceName() + ": cannot register with kubelet: " + kubeletSocket + " does not exist."
                + " Is kubelet running on this node, and is this the socket it serves? kubelet v1.31 always serves "
                + Names.KUBELET_SOCKET + " (whatever its --root-dir): mount that folder (the chart's hostPath) or pass --kubelet-socket."
                + " Retrying every check; kubelet knows no " + service.handler().resourceName() + " until then");
    }

    private boolean register() {
        ManagedChannel ch = UnixSockets.dial(kubeletSocket, group);
        try {
            RegistrationGrpc.newBlockingStub(ch).withDeadlineAfter(5, TimeUnit.SECONDS).register(RegisterRequest.newBuilder()
                    .setVersion(API_VERSION)
                    .setEndpoint(socket.getFileName().toString())
                    .setResourceName(service.handler().resourceName())
                    .setOptions(ResourceServer.options())
                    .build());
            registrations++;
            LOG.info(service.handler().resourceName() + ": registered with kubelet at " + kubeletSocket);
            return true;
        } catch (RuntimeException e) {
            LOG.warning(service.handler().resourceName() + ": registration with kubelet at " + kubeletSocket + " failed, retrying: " + e.getMessage());
            return false;
        } finally {
            UnixSockets.shutdown(ch);
        }
    }

    private static Object fileKey(Path p) {
        try {
            var a = Files.readAttributes(p, BasicFileAttributes.class);
            return a.fileKey() != null ? a.fileKey() : a.creationTime();
        } catch (IOException e) {
            return null;
        }
    }

    @Override public synchronized void close() {
        service.closeStreams();
        UnixSockets.shutdown(server);
        server = null;
        try { Files.deleteIfExists(socket); } catch (IOException ignored) { }
    }
}
