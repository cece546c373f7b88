package io.mpshare.deviceplugin.kubelet;

import io.grpc.netty.shaded.io.netty.channel.EventLoopGroup;
import io.mpshare.core.Names;
import io.mpshare.deviceplugin.api.v1beta1.AllocateRequest;
import io.mpshare.deviceplugin.api.v1beta1.AllocateResponse;
import io.mpshare.deviceplugin.api.v1beta1.DevicePluginGrpc;
import io.mpshare.deviceplugin.api.v1beta1.Empty;
import io.mpshare.deviceplugin.api.v1beta1.ListAndWatchResponse;
import io.mpshare.deviceplugin.api.v1beta1.PreferredAllocationRequest;
import io.mpshare.deviceplugin.api.v1beta1.PreferredAllocationResponse;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Instant;
import java.time.InstantSource;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

import static org.assertj.core.api.Assertions.assertThat;

/** Real unix sockets: the endpoint's warnings when kubelet's socket is missing, and no per-connection SO_KEEPALIVE warning. */
class PluginEndpointIT {
    @TempDir Path dir;
    final EventLoopGroup group = UnixSockets.newGroup(1);
    final List<LogRecord> logged = new CopyOnWriteArrayList<>();
    final Handler capture = new Handler() {
        @Override public void publish(LogRecord r) { logged.add(r); }

        @Override public void flush() { }

        @Override public void close() { }
    };
    final Logger endpointLog = Logger.getLogger(PluginEndpoint.class.getName());
    final Logger nettyLog = Logger.getLogger("io.grpc.netty.shaded.io.netty");
    Instant now = Instant.parse("2026-12-01T00:00:00Z");
    final InstantSource clock = () -> now;

    static final class Handler0 implements ResourceHandler {
        @Override public String resourceName() { return Names.RESOURCE_GPU_MEM; }

        @Override public ListAndWatchResponse devices() { return ListAndWatchResponse.getDefaultInstance(); }

        @Override public PreferredAllocationResponse preferred(PreferredAllocationRequest r) { return PreferredAllocationResponse.getDefaultInstance(); }

        @Override public AllocateResponse allocate(AllocateRequest r) { return AllocateResponse.getDefaultInstance(); }
    }

    PluginEndpointIT() {
        endpointLog.addHandler(capture);
        nettyLog.addHandler(capture);
    }

    @AfterEach void stop() {
        endpointLog.removeHandler(capture);
        nettyLog.removeHandler(capture);
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
    }

    long missingWarnings() {
        return logged.stream().filter(r -> r.getLevel() == Level.WARNING && r.getMessage().contains("does not exist")).count();
    }

    @Test void ensure_kubeletSocketMissing_warnsAtOnceThenEveryThirtySeconds() {
        Path kubelet = dir.resolve("kubelet.sock");
        try (var ep = new PluginEndpoint(new ResourceServer(new Handler0()), dir, "mem.sock", kubelet, group, clock)) {
            assertThat(ep.ensure()).isFalse();
            assertThat(missingWarnings()).isEqualTo(1);
            assertThat(logged).anySatisfy(r -> assertThat(r.getMessage()).contains(kubelet.toString()).contains("--kubelet-socket")
                    .contains(Names.KUBELET_SOCKET));
            now = now.plusSeconds(10);
            ep.ensure();
            assertThat(missingWarnings()).isEqualTo(1);
            now = now.plus(PluginEndpoint.MISSING_WARN_EVERY);
            ep.ensure();
            assertThat(missingWarnings()).isEqualTo(2);
        }
    }

    @Test void close_removesItsSocket() {
        try (var ep = new PluginEndpoint(new ResourceServer(new Handler0()), dir, "mem.sock", dir.resolve("kubelet.sock"), group, clock)) {
            ep.ensure();
            assertThat(ep.socket()).exists();
            ep.close();
            assertThat(ep.socket()).doesNotExist();
        }
    }

    @Test void dialAndServe_unixSocket_noKeepAliveWarningPerConnection() throws Exception {
        Path sock = dir.resolve("p.sock");
        var server = UnixSockets.serve(sock, group, new ResourceServer(new Handler0()));
        for (int i = 0; i < 3; i++) {
            var ch = UnixSockets.dial(sock, group);
            DevicePluginGrpc.newBlockingStub(ch).withDeadlineAfter(10, TimeUnit.SECONDS).getDevicePluginOptions(Empty.getDefaultInstance());
            UnixSockets.shutdown(ch);
        }
        UnixSockets.shutdown(server);
        assertThat(logged).noneSatisfy(r -> assertThat(r.getMessage()).contains("SO_KEEPALIVE"));
    }
}
