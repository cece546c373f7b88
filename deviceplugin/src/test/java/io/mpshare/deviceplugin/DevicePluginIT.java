package io.mpshare.deviceplugin;

import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.mpshare.core.MemoryUnit;
import io.mpshare.core.Names;
import io.mpshare.core.codec.InventoryCodec;
import io.mpshare.core.model.NodeInventory;
import io.mpshare.core.model.PodKey;
import io.mpshare.deviceplugin.allocation.AnswerBuilder;
import io.mpshare.deviceplugin.api.v1beta1.Device;
import io.mpshare.deviceplugin.api.v1beta1.ListAndWatchResponse;
import io.mpshare.deviceplugin.api.v1beta1.RegisterRequest;
import io.mpshare.deviceplugin.cluster.InventoryPublisher;
import io.mpshare.deviceplugin.devices.DeviceCatalog;
import io.mpshare.deviceplugin.devices.DeviceIds;
import io.mpshare.deviceplugin.testkit.FakeKubelet;
import io.mpshare.deviceplugin.testkit.TestPods;
import io.mpshare.mps.fake.FakeMpsControl;
import io.mpshare.nvml.fake.FakeNvml;
import io.mpshare.testing.Waits;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.function.BooleanSupplier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The whole node agent against a fake kubelet (real gRPC, temp unix sockets) and fabric8's mock API server (CRUD). */
@EnableKubernetesMockClient(crud = true)
class DevicePluginIT {
    /** The context reserve a pod was booked with, which each cap adds (its value is calibrated elsewhere). */
    long reserve(String pod) { return node.allocations().allocationOf(PodKey.of("default", pod)).orElseThrow().demand().reserveMib(); }
    static final Duration WAIT = Duration.ofSeconds(30);

    KubernetesMockServer server;
    KubernetesClient client;
    @TempDir Path tmp;

    final FakeNvml nvml = new FakeNvml().addH200().addH200();
    final FakeMpsControl mps = new FakeMpsControl();
    FakeKubelet kubelet;
    DevicePluginNode node;
    NodeInventory inv;
    /** Just before the node started: its inventory's publish time is no earlier. */
    Instant started;

    @BeforeEach void start() throws Exception {
        client.nodes().resource(new NodeBuilder().withNewMetadata().withName("n1").endMetadata().build()).create();
        Path dir = tmp.resolve("device-plugins");
        Path podRes = tmp.resolve("pod-resources/kubelet.sock");
        kubelet = new FakeKubelet(dir, podRes).start();
        var cfg = DevicePluginConfig.defaults("n1").withSockets(dir, kubelet.socket(), podRes)
                .withPeriods(Duration.ofMillis(500), Duration.ofSeconds(1), Duration.ofMillis(100)).withPodFieldSelector(false)
                .withFallbackBudget(WAIT);   // the mock server on a loaded 2-core machine, not the 1 s budget of a real apiserver
        started = Instant.now();
        node = DevicePluginNode.start(cfg, DevicePluginNode.Io.of(nvml, client, c -> mps::daemonUp, cfg.runDir()));
        inv = InventoryPublisher.readHardware(nvml, "n1");
    }

    @AfterEach void stop() {
        if (node != null) node.close();
        if (kubelet != null) kubelet.close();
    }

    static void await(String what, BooleanSupplier cond) throws InterruptedException {
        Waits.until(WAIT, cond, () -> what);
    }

    Pod create(Pod p) throws InterruptedException {
        long v = node.pods().version();
        client.pods().inNamespace(p.getMetadata().getNamespace()).resource(p).create();
        await("informer sees " + p.getMetadata().getName(), () -> node.pods().version() > v && node.pods().get(key(p)).isPresent());
        return p;
    }

    static PodKey key(Pod p) { return PodKey.of(p.getMetadata().getNamespace(), p.getMetadata().getName()); }

    Map<String, String> annotations(String name) {
        return client.pods().inNamespace("default").withName(name).get().getMetadata().getAnnotations();
    }

    @Test void start_registersBothResourcesAndListsTheirDevices() throws Exception {
        Set<String> resources = new HashSet<>();
        for (int i = 0; i < 2; i++) {
            RegisterRequest r = kubelet.awaitRegistration(WAIT);
            assertThat(r.getVersion()).isEqualTo("v1beta1");
            assertThat(r.getOptions().getGetPreferredAllocationAvailable()).isTrue();
            resources.add(r.getResourceName() + "@" + r.getEndpoint());
        }
        assertThat(resources).containsExactlyInAnyOrder(Names.RESOURCE_GPU_MEM + "@" + DevicePluginConfig.MEM_SOCKET,
                Names.RESOURCE_GPU_CORE + "@" + DevicePluginConfig.CORE_SOCKET);
        ListAndWatchResponse mem = kubelet.awaitList(Names.RESOURCE_GPU_MEM, l -> l.getDevicesCount() > 0, WAIT);
        assertThat(mem.getDevicesCount()).isEqualTo(2 * 140);
        assertThat(kubelet.awaitList(Names.RESOURCE_GPU_CORE, l -> l.getDevicesCount() > 0, WAIT).getDevicesCount()).isEqualTo(200);
    }

    @Test void start_publishesInventoryOnNode() {
        var ann = client.nodes().withName("n1").get().getMetadata().getAnnotations();
        NodeInventory published = InventoryCodec.decode("n1", ann.get(Names.ANN_NODE_GPUS));
        assertThat(published.gpus()).hasSize(2);
        assertThat(published.gpu(0).uuid()).isEqualTo("GPU-fake-0");
        assertThat(published.gpu(0).totalMib()).isEqualTo(FakeNvml.H200_MIB);
        assertThat(Instant.parse(ann.get(Names.ANN_NODE_GPUS_TIME))).isBetween(started, Instant.now());
    }

    @Test void allocate_seedSample_envAndAssigned() throws Exception {
        kubelet.awaitList(Names.RESOURCE_GPU_MEM, l -> l.getDevicesCount() > 0, WAIT);
        create(TestPods.pod("gpu-share-sample").mem("mps", 7).hostIPC().on("n1").placed(inv, 1).build());
        var r = kubelet.admit(PodKey.of("default", "gpu-share-sample"), "mps", Names.RESOURCE_GPU_MEM, 7);
        assertThat(r.getEnvsMap()).containsEntry(Names.ENV_VISIBLE_DEVICES, "GPU-fake-1")
                .containsEntry(Names.ENV_MPS_MEM_LIMIT, "0=" + (7168 + reserve("gpu-share-sample")) + "M")
                .containsEntry(Names.ENV_MPS_PIPE, "/run/mpshare/blue/pipe")
                .containsEntry(AnswerBuilder.ENV_POD, "default/gpu-share-sample");
        assertThat(r.getMounts(0).getReadOnly()).isTrue();
        // the preferred allocation steered kubelet to IDs of the pod's GPU
        assertThat(kubelet.heldBy(PodKey.of("default", "gpu-share-sample"), "mps", Names.RESOURCE_GPU_MEM))
                .allSatisfy(id -> assertThat(DeviceIds.gpuUuid(id)).contains("GPU-fake-1"));
        await("assigned annotation", () -> "true".equals(annotations("gpu-share-sample").get(Names.ANN_ASSIGNED)));
        assertThat(annotations("gpu-share-sample")).containsEntry(Names.ACK_GPU_MEM_ASSIGNED, "true");
    }

    @Test void allocate_activeColourFromNode() throws Exception {
        client.nodes().withName("n1").edit(n -> { n.getMetadata().getAnnotations().put(Names.ANN_NODE_MPS_ACTIVE, "green"); return n; });
        kubelet.awaitList(Names.RESOURCE_GPU_MEM, l -> l.getDevicesCount() > 0, WAIT);
        create(TestPods.pod("p").mem("main", 2).on("n1").placed(inv, 0).build());
        await("node view sees green", () -> node.activeColour().equals("green"));
        var r = kubelet.admit(PodKey.of("default", "p"), "main", Names.RESOURCE_GPU_MEM, 2);
        assertThat(r.getEnvsMap()).containsEntry(Names.ENV_MPS_PIPE, "/run/mpshare/green/pipe").containsEntry(AnswerBuilder.ENV_GENERATION, "green");
    }

    @Test void allocate_podNotPlacedByExtender_kubeletGetsOurMessage() throws Exception {
        kubelet.awaitList(Names.RESOURCE_GPU_MEM, l -> l.getDevicesCount() > 0, WAIT);
        create(TestPods.pod("preset").mem("main", 7).on("n1").build());
        assertThatThrownBy(() -> kubelet.admit(PodKey.of("default", "preset"), "main", Names.RESOURCE_GPU_MEM, 7))
                .isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
                    assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.FAILED_PRECONDITION);
                    assertThat(e.getStatus().getDescription()).contains("default/preset").contains("must be placed by the mpshare scheduler extender");
                });
    }

    @Test void allocate_thiefWithPresetNodeName_refusedAtOnceAndNeighbourGetsItsGpu() throws Exception {
        kubelet.awaitList(Names.RESOURCE_GPU_MEM, l -> l.getDevicesCount() > 0, WAIT);
        create(TestPods.pod("thief").mem("main", 7).on("n1").build());
        create(TestPods.pod("victim").mem("main", 7).on("n1").placed(inv, 1).build());
        assertThatThrownBy(() -> kubelet.admit(PodKey.of("default", "thief"), "main", Names.RESOURCE_GPU_MEM, 7))
                .isInstanceOfSatisfying(StatusRuntimeException.class, e -> assertThat(e.getStatus().getDescription()).contains("default/thief"));
        var r = kubelet.admit(PodKey.of("default", "victim"), "main", Names.RESOURCE_GPU_MEM, 7);
        assertThat(r.getEnvsMap()).containsEntry(AnswerBuilder.ENV_POD, "default/victim").containsEntry(Names.ENV_VISIBLE_DEVICES, "GPU-fake-1");
        assertThat(kubelet.heldBy(PodKey.of("default", "victim"), "main", Names.RESOURCE_GPU_MEM))
                .allSatisfy(id -> assertThat(DeviceIds.gpuUuid(id)).contains("GPU-fake-1"));
        await("victim assigned", () -> "true".equals(annotations("victim").get(Names.ANN_ASSIGNED)));
    }

    @Test void allocate_podBoundBeforeTheInformerSawIt_directReadFindsItAndPrefersItsGpu() throws Exception {
        kubelet.awaitList(Names.RESOURCE_GPU_MEM, l -> l.getDevicesCount() > 0, WAIT);
        node.pods().close();   // the informer stops: kubelet is ahead of it, as ~25 ms after a bind
        client.pods().inNamespace("default").resource(TestPods.pod("fresh").mem("main", 5).on("n1").placed(inv, 1).build()).create();
        var r = kubelet.admit(PodKey.of("default", "fresh"), "main", Names.RESOURCE_GPU_MEM, 5);
        assertThat(r.getEnvsMap()).containsEntry(AnswerBuilder.ENV_POD, "default/fresh").containsEntry(Names.ENV_VISIBLE_DEVICES, "GPU-fake-1");
        assertThat(kubelet.heldBy(PodKey.of("default", "fresh"), "main", Names.RESOURCE_GPU_MEM))
                .allSatisfy(id -> assertThat(DeviceIds.gpuUuid(id)).contains("GPU-fake-1"));
    }

    @Test void kubeletRestart_pluginServesAndRegistersAgain() throws Exception {
        kubelet.awaitRegistration(WAIT);
        kubelet.awaitRegistration(WAIT);
        int before = node.memoryEndpoint().registrations();
        kubelet.restart();
        assertThat(node.memoryEndpoint().socket()).doesNotExist();
        assertThat(node.memoryEndpoint().ensure()).isTrue();
        assertThat(node.coreEndpoint().ensure()).isTrue();
        assertThat(node.memoryEndpoint().socket()).exists();
        assertThat(node.memoryEndpoint().registrations()).isEqualTo(before + 1);
        kubelet.awaitRegistration(WAIT);
        kubelet.awaitRegistration(WAIT);
        assertThat(kubelet.awaitList(Names.RESOURCE_GPU_MEM, l -> l.getDevicesCount() == 280, WAIT).getDevicesCount()).isEqualTo(280);
    }

    @Test void daemonDown_devicesUnhealthyThenHealthyAgain_nodeLabelChangesForTheScheduler() throws Exception {
        kubelet.awaitList(Names.RESOURCE_GPU_MEM, l -> l.getDevicesCount() > 0, WAIT);
        mps.crash();
        node.health().tick();
        kubelet.awaitList(Names.RESOURCE_GPU_MEM, l -> allHealth(l, DeviceCatalog.UNHEALTHY), WAIT);
        kubelet.awaitList(Names.RESOURCE_GPU_CORE, l -> allHealth(l, DeviceCatalog.UNHEALTHY), WAIT);
        await("inventory says unhealthy", () -> InventoryCodec.decode("n1",
                client.nodes().withName("n1").get().getMetadata().getAnnotations().get(Names.ANN_NODE_GPUS)).gpus().stream().noneMatch(g -> g.healthy()));
        // kube-scheduler requeues on a label change, not on an annotation change
        await("label says no healthy GPU", () -> "0".equals(client.nodes().withName("n1").get().getMetadata().getLabels().get(Names.NODE_LABEL_HEALTHY_GPUS)));
        mps.restart();
        node.health().tick();
        kubelet.awaitList(Names.RESOURCE_GPU_MEM, l -> allHealth(l, DeviceCatalog.HEALTHY), WAIT);
        await("label says 2 healthy GPUs", () -> "2".equals(client.nodes().withName("n1").get().getMetadata().getLabels().get(Names.NODE_LABEL_HEALTHY_GPUS)));
    }

    @Test void xidOnGpu1_onlyItsDevicesUnhealthy() throws Exception {
        kubelet.awaitList(Names.RESOURCE_GPU_MEM, l -> l.getDevicesCount() > 0, WAIT);
        nvml.injectXid(1, 79);
        node.health().tick();
        var l = kubelet.awaitList(Names.RESOURCE_GPU_MEM, x -> !allHealth(x, DeviceCatalog.HEALTHY), WAIT);
        for (Device d : l.getDevicesList())
            assertThat(d.getHealth()).isEqualTo(d.getID().startsWith("GPU-fake-1") ? DeviceCatalog.UNHEALTHY : DeviceCatalog.HEALTHY);
    }

    static boolean allHealth(ListAndWatchResponse l, String h) {
        return l.getDevicesCount() > 0 && l.getDevicesList().stream().allMatch(d -> d.getHealth().equals(h));
    }

    @Test void twins_reconciledFromPodResources() throws Exception {
        kubelet.awaitList(Names.RESOURCE_GPU_MEM, l -> l.getDevicesCount() > 0, WAIT);
        Instant t = Instant.parse("2026-11-30T00:00:00Z");
        create(TestPods.pod("twin-a").mem("main", 7).on("n1").placed(inv, 0).assumedAt(t).build());
        create(TestPods.pod("twin-b").mem("main", 7).on("n1").placed(inv, 1).assumedAt(t.plusMillis(1)).build());
        // kubelet admits twin-b first: it is answered with the older twin-a's GPU 0, and twin-a then with GPU 1
        var rb = kubelet.admit(PodKey.of("default", "twin-b"), "main", Names.RESOURCE_GPU_MEM, 7);
        var ra = kubelet.admit(PodKey.of("default", "twin-a"), "main", Names.RESOURCE_GPU_MEM, 7);
        assertThat(rb.getEnvsMap()).containsEntry(Names.ENV_VISIBLE_DEVICES, "GPU-fake-0");
        assertThat(ra.getEnvsMap()).containsEntry(Names.ENV_VISIBLE_DEVICES, "GPU-fake-1");
        // pod-resources, env and annotation agree
        assertThat(kubelet.heldBy(PodKey.of("default", "twin-b"), "main", Names.RESOURCE_GPU_MEM)).allSatisfy(id -> assertThat(id).startsWith("GPU-fake-0"));
        await("twin-b annotated with GPU 0", () -> annotations("twin-b").get(Names.ANN_ALLOCATION).contains("gpus=0;uuids=GPU-fake-0"));
        await("twin-a annotated with GPU 1", () -> annotations("twin-a").get(Names.ANN_ALLOCATION).contains("gpus=1;uuids=GPU-fake-1"));
        assertThat(annotations("twin-b")).containsEntry(Names.ACK_GPU_MEM_IDX, "0").containsEntry(Names.ANN_ASSIGNED, "true");
        await("informer sees the correction", () -> node.allocations().allocationOf(PodKey.of("default", "twin-b"))
                .map(a -> a.gpuIndices().equals(java.util.List.of(0))).orElse(false));
        assertThat(node.reconciler().reconcile().corrected()).isZero();
    }

    @Test void allocate_mibUnits_memLimitInMiB() throws Exception {
        node.close();
        kubelet.close();
        Path dir = tmp.resolve("dp2");
        Path podRes = tmp.resolve("pr2/kubelet.sock");
        kubelet = new FakeKubelet(dir, podRes).start();
        var small = new FakeNvml().addDevice("GPU-small-0", "Tesla T4", 15_360);
        var cfg = DevicePluginConfig.defaults("n1").withUnit(MemoryUnit.MIB).withSockets(dir, kubelet.socket(), podRes).withPodFieldSelector(false);
        node = DevicePluginNode.start(cfg, DevicePluginNode.Io.of(small, client, c -> mps::daemonUp, cfg.runDir()));
        var smallInv = InventoryPublisher.readHardware(small, "n1");
        assertThat(kubelet.awaitList(Names.RESOURCE_GPU_MEM, l -> l.getDevicesCount() > 0, WAIT).getDevicesCount()).isEqualTo(15_360);
        create(TestPods.pod("m").unit(MemoryUnit.MIB).mem("main", 3000).on("n1").placed(smallInv, 0).build());
        var r = kubelet.admit(PodKey.of("default", "m"), "main", Names.RESOURCE_GPU_MEM, 3000);
        assertThat(r.getEnvsMap()).containsEntry(Names.ENV_MPS_MEM_LIMIT, "0=" + (3000 + reserve("m")) + "M");
    }
}
