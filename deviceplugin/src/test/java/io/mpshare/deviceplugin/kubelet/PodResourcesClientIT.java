package io.mpshare.deviceplugin.kubelet;

import io.grpc.netty.shaded.io.netty.channel.EventLoopGroup;
import io.mpshare.core.Names;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** No kubelet behind the pod-resources socket (the quickstart's fake nodes, a kubelet restarting): a sentence, not a gRPC trace. */
class PodResourcesClientIT {
    @TempDir Path tmp;
    final EventLoopGroup group = UnixSockets.newGroup(1);

    @AfterEach void stop() { group.shutdownGracefully(0, 1, TimeUnit.SECONDS); }

    @Test void list_noKubelet_uncheckedIoNamingTheSocket() {
        Path socket = tmp.resolve("pod-resources/kubelet.sock");
        try (var client = new PodResourcesClient(socket, group)) {
            assertThatThrownBy(() -> client.list(Names.RESOURCE_GPU_MEM))
                    .isInstanceOf(UncheckedIOException.class)
                    .hasMessageStartingWith("kubelet's pod-resources API at " + socket + " does not answer (UNAVAILABLE")
                    .hasMessageEndingWith("is kubelet running, and is this its socket (--pod-resources-socket)?");
        }
    }
}
