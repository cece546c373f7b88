package io.mpshare.deviceplugin;

import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.grpc.netty.shaded.io.netty.channel.EventLoopGroup;
import io.mpshare.core.Names;
import io.mpshare.deviceplugin.api.v1beta1.DevicePluginGrpc;
import io.mpshare.deviceplugin.api.v1beta1.DevicePluginOptions;
import io.mpshare.deviceplugin.api.v1beta1.Empty;
import io.mpshare.deviceplugin.kubelet.UnixSockets;
import io.mpshare.deviceplugin.testkit.FakeKubelet;
import io.mpshare.mps.fake.FakeMpsControl;
import io.mpshare.mps.preflight.AlreadyRunning;
import io.mpshare.nvml.fake.FakeNvml;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A second device plugin beside a live one (a second shell, a unit restarted beside the running one) refuses before it
 * changes anything: the first one's sockets are the same files and still answer, kubelet keeps its registrations and
 * device lists, and the node's inventory is the first one's. The fake kubelet is real gRPC on unix sockets; the API
 * server is fabric8's mock in CRUD mode.
 */
@EnableKubernetesMockClient(crud = true)
class SecondPluginIT {
    static final Duration WAIT = Duration.ofSeconds(30);

    KubernetesMockServer server;
    KubernetesClient client;
    @TempDir Path tmp;

    final FakeMpsControl mps = new FakeMpsControl();
    FakeKubelet kubelet;
    DevicePluginNode first;
    DevicePluginConfig cfg;
    Path dir;

    @BeforeEach void startFirst() throws Exception {
        client.nodes().resource(new NodeBuilder().withNewMetadata().withName("n1").endMetadata().build()).create();
        dir = tmp.resolve("device-plugins");
        Path podRes = tmp.resolve("pod-resources/kubelet.sock");
        kubelet = new FakeKubelet(dir, podRes).start();
        cfg = DevicePluginConfig.defaults("n1").withSockets(dir, kubelet.socket(), podRes);
        first = DevicePluginNode.start(cfg.withPodFieldSelector(false), DevicePluginNode.Io.of(new FakeNvml().addH200().addH200(), client, c -> mps::daemonUp, cfg.runDir()));
        kubelet.awaitRegistration(WAIT);
        kubelet.awaitRegistration(WAIT);
        kubelet.awaitList(Names.RESOURCE_GPU_MEM, l -> l.getDevicesCount() > 0, WAIT);
    }

    @AfterEach void stop() {
        if (first != null) first.close();
        if (kubelet != null) kubelet.close();
    }

    /** Every file of the plugin folder, by name, with its device and inode: a socket served again is a new inode. */
    private Map<String, Object> folder() throws IOException {
        Map<String, Object> files = new TreeMap<>();
        try (var walk = Files.walk(dir)) {
            for (Path p : walk.toList())
                files.put(dir.relativize(p).toString(), Files.readAttributes(p, BasicFileAttributes.class).fileKey());
        }
        return files;
    }

    private String inventory() {
        return client.nodes().withName("n1").get().getMetadata().getAnnotations().get(Names.ANN_NODE_GPUS);
    }

    private DevicePluginOptions ask(String socket) {
        EventLoopGroup group = UnixSockets.newGroup(1);
        var ch = UnixSockets.dial(dir.resolve(socket), group);
        try {
            return DevicePluginGrpc.newBlockingStub(ch).withDeadlineAfter(10, TimeUnit.SECONDS).getDevicePluginOptions(Empty.getDefaultInstance());
        } finally {
            UnixSockets.shutdown(ch);
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
        }
    }

    @Test void secondPlugin_refusesNamingTheFirst_andChangesNothing() throws Exception {
        Map<String, Object> before = folder();
        String inventory = inventory();
        int listed = kubelet.latest(Names.RESOURCE_GPU_MEM).getDevicesCount();
        long me = ProcessHandle.current().pid();

        FakeNvml other = new FakeNvml().addDevice("NVIDIA A100", 12036);   // it would publish this, were it let
        assertThatThrownBy(() -> DevicePluginNode.start(cfg.withPodFieldSelector(false), DevicePluginNode.Io.of(other, client, c -> mps::daemonUp, cfg.runDir())))
                .isInstanceOf(AlreadyRunning.class)
                .hasMessageStartingWith("another device plugin is running here: pid " + me + " (")
                .hasMessageContaining("holds " + dir.resolve(DevicePluginPreflight.LOCK)
                        + " and serves " + DevicePluginConfig.MEM_SOCKET + " and " + DevicePluginConfig.CORE_SOCKET + " in " + dir)
                .hasMessageEndingWith(". Stop it first: one device plugin per node. Nothing was changed");

        assertThat(folder()).isEqualTo(before);
        assertThat(ask(DevicePluginConfig.MEM_SOCKET).getGetPreferredAllocationAvailable()).isTrue();
        assertThat(ask(DevicePluginConfig.CORE_SOCKET)).isNotNull();
        assertThat(inventory()).isEqualTo(inventory).contains("NVIDIA H200").doesNotContain("A100");
        assertThat(kubelet.latest(Names.RESOURCE_GPU_MEM).getDevicesCount()).isEqualTo(listed);
        assertThat(first.memoryEndpoint().registrations()).isEqualTo(1);
    }

    @Test void afterTheFirstStops_aNewOneStarts() throws Exception {
        first.close();
        first = null;
        assertThat(dir.resolve(DevicePluginConfig.MEM_SOCKET)).doesNotExist();
        first = DevicePluginNode.start(cfg.withPodFieldSelector(false), DevicePluginNode.Io.of(new FakeNvml().addH200(), client, c -> mps::daemonUp, cfg.runDir()));
        kubelet.awaitList(Names.RESOURCE_GPU_MEM, l -> l.getDevicesCount() == 140, WAIT);
    }
}
