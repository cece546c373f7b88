package io.mpshare.deviceplugin.kubelet;

import io.grpc.BindableService;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.netty.shaded.io.netty.channel.ChannelOption;
import io.grpc.netty.shaded.io.netty.channel.EventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollDomainSocketChannel;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollEventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollServerDomainSocketChannel;
import io.grpc.netty.shaded.io.netty.channel.unix.DomainSocketAddress;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/** gRPC over unix domain sockets with grpc-netty-shaded's epoll transport (Linux). */
public final class UnixSockets {
    private UnixSockets() {}

    /** Starts a server on {@code socket}, removing a stale file first. The caller shuts the group down after the server. */
    public static Server serve(Path socket, EventLoopGroup group, BindableService... services) throws IOException {
        return serve(socket, group, false, services);
    }

    /** @param direct run handlers on the event loop ({@code directExecutor}): only for handlers that never block there */
    public static Server serve(Path socket, EventLoopGroup group, boolean direct, BindableService... services) throws IOException {
        Files.deleteIfExists(socket);
        var b = NettyServerBuilder.forAddress(new DomainSocketAddress(socket.toString()))
                .channelType(EpollServerDomainSocketChannel.class)
                .bossEventLoopGroup(group)
                .workerEventLoopGroup(group)
                .withChildOption(ChannelOption.SO_KEEPALIVE, null)   // as in dial(): a unix socket has no SO_KEEPALIVE
                .permitKeepAliveWithoutCalls(true);
        if (direct) b.directExecutor();
        for (BindableService s : services) b.addService(s);
        return b.build().start();
    }

    /**
     * A channel to a unix socket. grpc-netty sets {@code SO_KEEPALIVE} on every client channel, which a unix socket
     * does not have: netty then logs a WARNING per connection. A null value removes the option from the bootstrap.
     */
    public static ManagedChannel dial(Path socket, EventLoopGroup group) {
        return NettyChannelBuilder.forAddress(new DomainSocketAddress(socket.toString()))
                .channelType(EpollDomainSocketChannel.class)
                .withOption(ChannelOption.SO_KEEPALIVE, null)
                .eventLoopGroup(group)
                .usePlaintext()
                .maxInboundMessageSize(16 << 20)
                .build();
    }

    public static EventLoopGroup newGroup(int threads) { return new EpollEventLoopGroup(threads); }

    public static void shutdown(Server server) {
        if (server == null) return;
        server.shutdownNow();
        try { server.awaitTermination(5, TimeUnit.SECONDS); } catch (InterruptedException e) { Thread.currentThread().interrupt(); }
    }

    public static void shutdown(ManagedChannel ch) {
        if (ch == null) return;
        ch.shutdownNow();
        try { ch.awaitTermination(5, TimeUnit.SECONDS); } catch (InterruptedException e) { Thread.currentThread().interrupt(); }
    }
}
