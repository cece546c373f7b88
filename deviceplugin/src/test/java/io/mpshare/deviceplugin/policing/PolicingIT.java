package io.mpshare.deviceplugin.policing;

import io.fabric8.kubernetes.api.model.ContainerStatusBuilder;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.mpshare.core.Names;
import io.mpshare.core.codec.UsageCodec;
import io.mpshare.core.isolation.MpsLimits;
import io.mpshare.core.model.NodeInventory;
import io.mpshare.core.model.PodKey;
import io.mpshare.deviceplugin.DevicePluginConfig;
import io.mpshare.deviceplugin.DevicePluginNode;
import io.mpshare.deviceplugin.NodeHttp;
import io.mpshare.deviceplugin.cluster.InventoryPublisher;
import io.mpshare.deviceplugin.domains.SupervisorDomains;
import io.mpshare.deviceplugin.testkit.FakeKubelet;
import io.mpshare.deviceplugin.testkit.TestPods;
import io.mpshare.kube.node.Distrust;
import io.mpshare.mps.fake.FakeMpsControl;
import io.mpshare.nvml.fake.FakeNvml;
import io.mpshare.policing.ActionPolicy;
import io.mpshare.policing.Snapshot.Role;
import io.mpshare.policing.metrics.PolicerMetrics.PodSeries;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The policer inside the whole node agent: fabric8's CRUD mock API server (plus the Eviction API), a fake kubelet,
 * FakeNvml for the GPU processes, FakeMpsControl as the active colour's control daemon, a fake {@code /proc} tree whose
 * cgroup files put each PID in its pod (cgroup v2, systemd driver, containerd), and a recording process killer.
 */
class PolicingIT {
    static final Duration WAIT = Duration.ofSeconds(30);
    static final String C_HOG = "a".repeat(64);
    static final String C_NEIGHBOUR = "b".repeat(64);

    EvictionDispatcher dispatcher;
    KubernetesMockServer server;
    KubernetesClient client;
    @TempDir Path tmp;
    Path proc;
    /** The run folder: each colour's status.json, as its supervisor writes it. */
    Path run;
    /** The UIDs the API server gave the pods (the CRUD mock assigns its own on create). */
    String hogUid, neighbourUid;

    final FakeNvml nvml = new FakeNvml().addH200().addH200();
    final FakeMpsControl mps = new FakeMpsControl();
    final Set<Long> killed = ConcurrentHashMap.newKeySet();
    final PrometheusRegistry registry = new PrometheusRegistry();
    FakeKubelet kubelet;
    DevicePluginNode node;
    NodeInventory inv;

    @BeforeEach void setUp() throws Exception {
        dispatcher = new EvictionDispatcher();
        server = new KubernetesMockServer(new Context(), new MockWebServer(), new HashMap<>(), dispatcher, false);
        server.init();
        client = server.createClient();
        client.nodes().resource(new NodeBuilder().withNewMetadata().withName("n1").endMetadata().build()).create();
        proc = Files.createDirectories(tmp.resolve("proc"));
        run = Files.createDirectories(tmp.resolve("run"));
        Files.writeString(proc.resolve("stat"), "cpu  1 2 3 4\nbtime " + BOOT.getEpochSecond() + "\n");
        inv = InventoryPublisher.readHardware(nvml, "n1");
    }

    @AfterEach void tearDown() {
        if (node != null) node.close();
        if (kubelet != null) kubelet.close();
        client.close();
        server.destroy();
    }

    void start(ActionPolicy action) throws Exception { start(action, PodSeries.LEFT_OUT); }

    void start(ActionPolicy action, PodSeries podSeries) throws Exception {
        Path dir = tmp.resolve("device-plugins");
        Path podRes = tmp.resolve("pod-resources/kubelet.sock");
        kubelet = new FakeKubelet(dir, podRes).start();
        var cfg = DevicePluginConfig.defaults("n1").withSockets(dir, kubelet.socket(), podRes)
                .withPeriods(Duration.ofMillis(500), Duration.ofSeconds(1), Duration.ofHours(1))
                .withPolicing(PolicingConfig.defaults().withAction(action).withInterval(Duration.ofMillis(200)).withProcRoot(proc).withPodSeries(podSeries));
        var hooks = new NodePolicer.Hooks(colour -> Names.MPS_COLOUR_BLUE.equals(colour) ? mps : null, new StatusFileServers(run),
                pid -> killed.add(pid), registry);
        node = DevicePluginNode.start(cfg.withPodFieldSelector(false), new DevicePluginNode.Io(nvml, client, c -> mps::daemonUp, hooks, Clock.systemUTC(),
                colour -> SupervisorDomains.overSocket(colour, cfg.runDir(), SupervisorDomains.TIMEOUT)));
    }

    /**
     * A pod of 7 GiB on GPU 0 with one running container {@code main}; returns its UID as stored (the CRUD mock gives
     * each created object a fresh one, so the allocation annotation is written again with it).
     */
    String pod(String name, String containerId) {
        String uid = java.util.UUID.randomUUID().toString();
        Pod p = TestPods.pod(name).uid(uid).mem("main", 7).on("n1").placed(inv, 0).build();
        p.getStatus().setPhase("Running");
        p.getStatus().setContainerStatuses(List.of(new ContainerStatusBuilder().withName("main")
                .withContainerID("containerd://" + containerId).withReady(true).build()));
        Pod created = client.pods().inNamespace("default").resource(p).create();
        String stored = created.getMetadata().getUid();
        if (!uid.equals(stored)) {
            Pod again = TestPods.pod(name).uid(stored).mem("main", 7).on("n1").placed(inv, 0).build();
            client.pods().inNamespace("default").withName(name).edit(x -> {
                x.getMetadata().setAnnotations(again.getMetadata().getAnnotations());
                return x;
            });
        }
        return stored;
    }

    /** A process of a pod's container in the fake /proc (cgroup v2, systemd, containerd). */
    void podProcess(long pid, String uid, String containerId) throws IOException {
        Path d = Files.createDirectories(proc.resolve(Long.toString(pid)));
        Files.writeString(d.resolve("cgroup"), "0::/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod" + uid.replace('-', '_')
                + ".slice/cri-containerd-" + containerId + ".scope\n");
        Files.writeString(d.resolve("cmdline"), "python3\0train.py\0");
    }

    /** Hog and neighbour, one MPS client each on GPU 0; the hog's uses {@code hogMib} (7 GiB + 512 reserve + 128 slack allowed). */
    void twoPods(long hogMib) throws IOException {
        hogUid = pod("hog", C_HOG);
        neighbourUid = pod("neighbour", C_NEIGHBOUR);
        podProcess(101, hogUid, C_HOG);
        podProcess(201, neighbourUid, C_NEIGHBOUR);
        mps.connectClient(101);
        mps.connectClient(201);
        nvml.startMpsClient(0, 101, hogMib);
        nvml.startMpsClient(0, 201, 4000);
    }

    static void await(String what, BooleanSupplier cond) throws InterruptedException {
        long end = System.nanoTime() + WAIT.toNanos();
        while (!cond.getAsBoolean()) {
            if (System.nanoTime() > end) throw new AssertionError("not within " + WAIT + ": " + what);
            TimeUnit.MILLISECONDS.sleep(20);
        }
    }

    List<Event> events(String involved) {
        return client.v1().events().inAnyNamespace().list().getItems().stream()
                .filter(e -> involved.equals(e.getInvolvedObject().getName())).toList();
    }

    boolean hasEvent(String involved, String reason) { return events(involved).stream().anyMatch(e -> reason.equals(e.getReason())); }

    List<String> terminates() { return mps.commands().stream().filter(c -> c.startsWith("terminate_client")).toList(); }

    String annotation(String pod, String key) {
        Pod p = client.pods().inNamespace("default").withName(pod).get();
        return p == null || p.getMetadata().getAnnotations() == null ? null : p.getMetadata().getAnnotations().get(key);
    }

    @Test void overLimit_terminate_endsTheHogsClient_warnsOnThePod_andLeavesTheNeighbour() throws Exception {
        twoPods(20_000);
        start(ActionPolicy.TERMINATE);

        await("terminate_client for the hog's PID", () -> terminates().stream().anyMatch(c -> c.endsWith(" 101")));
        assertThat(terminates()).noneMatch(c -> c.endsWith(" 201"));
        await("a Warning event on the hog", () -> hasEvent("hog", "GpuMemoryOverLimit"));
        Event over = events("hog").stream().filter(e -> "GpuMemoryOverLimit".equals(e.getReason())).findFirst().orElseThrow();
        assertThat(over.getType()).isEqualTo("Warning");
        assertThat(over.getInvolvedObject().getKind()).isEqualTo("Pod");
        assertThat(over.getInvolvedObject().getUid()).isEqualTo(hogUid);
        assertThat(over.getMetadata().getNamespace()).isEqualTo("default");
        await("an event for the terminated client", () -> hasEvent("hog", "MpsClientTerminated"));

        // usage on both pods, decoded as inspect reads it
        await("usage annotation on the hog", () -> annotation("hog", Names.ANN_USAGE) != null);
        UsageCodec.PodUsage hog = UsageCodec.decode(annotation("hog", Names.ANN_USAGE));
        assertThat(hog.gpus()).singleElement().satisfies(g -> {
            assertThat(g.index()).isZero();
            assertThat(g.usedMib()).isEqualTo(20_000);
            // 7 GiB + the context reserve the pod was booked with (its default is calibrated elsewhere)
            assertThat(g.allocatedMib()).isEqualTo(node.allocations().allocationOf(PodKey.of("default", "hog"))
                    .orElseThrow().demand().chargeMib());
            assertThat(g.processes()).isEqualTo(1);
        });
        assertThat(hog.containers()).singleElement().satisfies(c -> assertThat(c.name()).isEqualTo("main"));
        await("usage annotation on the neighbour", () -> annotation("neighbour", Names.ANN_USAGE) != null);
        assertThat(UsageCodec.decode(annotation("neighbour", Names.ANN_USAGE)).usedMib()).isEqualTo(4000);

        // the neighbour: no event, no action
        assertThat(events("neighbour")).isEmpty();
        assertThat(killed).doesNotContain(201L);
        assertThat(client.pods().inNamespace("default").withName("neighbour").get()).isNotNull();
        assertThat(dispatcher.log).noneMatch(l -> l.contains("/eviction"));
    }

    /**
     * F2 of the hostile-tenant review, through the whole agent and the API server: the hog's charge rewritten as a tenant
     * with {@code patch pods} would ({@code kubectl annotate --overwrite}) is not counted: the booking, the server
     * ceiling and the policer's allowance stay those of its resources, and a client over its real share is still ended.
     */
    @Test void forgedCharge_throughTheApiServer_notCounted_hogStillTerminated() throws Exception {
        start(ActionPolicy.TERMINATE);
        hogUid = pod("hog", C_HOG);
        PodKey hog = PodKey.of("default", "hog");
        await("the hog booked", () -> node.bookings().bookingOf(hog).map(a -> a.podUid().equals(hogUid)).orElse(false));
        long charge = node.bookings().bookingOf(hog).orElseThrow().demand().chargeMib();
        Map<Integer, Long> ceilings = node.ceilings().desired();
        assertThat(ceilings).containsEntry(0, MpsLimits.ceilingMib(charge));

        client.pods().inNamespace("default").withName("hog").edit(x -> {
            x.getMetadata().setAnnotations(TestPods.forged(x, 140_000, 138_976).getMetadata().getAnnotations());
            return x;
        });
        await("the forged annotation refused", () -> node.refusals().count(Distrust.DISAGREES_WITH_RESOURCES) == 1);
        assertThat(annotation("hog", Names.ANN_ALLOCATION)).contains("charge=140000/");
        assertThat(node.bookings().bookingOf(hog).orElseThrow().demand().chargeMib()).isEqualTo(charge);
        assertThat(node.ceilings().desired()).as("no ceiling raised").isEqualTo(ceilings);
        assertThat(node.policer().orElseThrow().view().allocations()).singleElement()
                .satisfies(a -> assertThat(a.demand().chargeMib()).as("the policer's allowance").isEqualTo(charge));

        podProcess(101, hogUid, C_HOG);
        mps.connectClient(101);
        nvml.startMpsClient(0, 101, 20_000);
        await("terminate_client for the hog's PID", () -> terminates().stream().anyMatch(c -> c.endsWith(" 101")));
        try (var http = new NodeHttp(new InetSocketAddress("127.0.0.1", 0), () -> null).metrics(node.metrics()).start()) {
            var res = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + http.port() + "/metrics")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(res.body()).contains("mpshare_node_bookings_refused_total{node=\"n1\",reason=\"disagrees_with_resources\"} 1.0");
        }
    }

    @Test void metrics_areServedOnNodeHttp() throws Exception {
        twoPods(20_000);
        start(ActionPolicy.EVENT, PodSeries.INCLUDED);
        await("an over-limit event", () -> hasEvent("hog", "GpuMemoryOverLimit"));
        String body = scrape();
        assertThat(body).contains("mpshare_policer_findings_total").contains("pod=\"hog\"");
        // event policy: reported, nothing ended
        assertThat(terminates()).isEmpty();
        assertThat(killed).isEmpty();
    }

    /** The default (no --pod-metrics): /metrics names no tenant's namespace, pod or container, only GPUs and counts. */
    @Test void metrics_withoutPodMetrics_nameNoTenantsPod() throws Exception {
        twoPods(20_000);
        start(ActionPolicy.EVENT);
        await("an over-limit event", () -> hasEvent("hog", "GpuMemoryOverLimit"));
        String body = scrape();
        assertThat(body).contains("mpshare_gpu_memory_used_bytes", "mpshare_policer_findings_total{")
                .doesNotContain("hog", "neighbour", "namespace=", "pod=", "container=");
    }

    String scrape() throws Exception {
        try (var http = new NodeHttp(new InetSocketAddress("127.0.0.1", 0), () -> null).metrics(node.metrics()).start()) {
            var res = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + http.port() + "/metrics")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(res.statusCode()).isEqualTo(200);
            return res.body();
        }
    }

    // --- the MPS server by PID (what its supervisor reports, and the kernel), never by name ---------------------

    static final Instant BOOT = Instant.parse("2026-11-30T00:00:00Z");
    static final long DAEMON = 4000, SERVER = 5000;
    static final String RENAMED = "/tmp/nvidia-cuda-mps-server\0-c\0import torch\0";

    /** blue's supervisor: its daemon and server run (host PIDs, in the mps-control pod) and its status.json names them. */
    void blueSupervisorReports() throws IOException {
        String mpsControlPod = "eeeeeeee-0000-4000-8000-00000000000e";
        kernelProcess(DAEMON, 1, "nvidia-cuda-mps-control\0-f\0", mpsControlPod);
        kernelProcess(SERVER, DAEMON, "nvidia-cuda-mps-server\0", mpsControlPod);
        nvml.startProcess(0, SERVER, 300);
        Files.createDirectories(run.resolve("blue"));
        Files.writeString(run.resolve("blue/status.json"), "{\"colour\":\"blue\",\"daemonUp\":true,\"ready\":true,\"phase\":\"UP\",\"daemonPid\":"
                + DAEMON + ",\"servers\":[{\"pid\":" + SERVER + ",\"clients\":[101,201]}],\"updatedAt\":\"" + Instant.now() + "\"}");
    }

    /** A process as the kernel writes it: its pod's cgroup, its own command line, its parent and start in {@code stat}. */
    void kernelProcess(long pid, long ppid, String cmdline, String podUid) throws IOException {
        Path d = Files.createDirectories(proc.resolve(Long.toString(pid)));
        Files.writeString(d.resolve("cgroup"), "0::/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod" + podUid.replace('-', '_')
                + ".slice/cri-containerd-" + "e".repeat(64) + ".scope\n");
        Files.writeString(d.resolve("cmdline"), cmdline);
        long ticks = Duration.between(BOOT, Instant.now().minusSeconds(60)).toMillis() / 10;
        Files.writeString(d.resolve("stat"), pid + " (x) S " + ppid + " " + pid + " " + pid + " 0 -1 4194560 1 0 0 0 5 2 0 0 20 0 1 0 " + ticks + " 1 1\n");
    }

    @Test void renamedProcess_inABookedPod_isKilled_theServerItsSupervisorReportsIsNot() throws Exception {
        blueSupervisorReports();
        twoPods(3000);
        podProcess(102, hogUid, C_HOG);
        Files.writeString(proc.resolve("102/cmdline"), RENAMED);
        nvml.startProcess(0, 102, 133_000);   // outside MPS, under the server's name
        start(ActionPolicy.TERMINATE);

        await("the renamed process killed", () -> killed.contains(102L));
        await("a rogue-process warning on the hog", () -> hasEvent("hog", "RogueGpuProcess"));
        var policer = node.policer().orElseThrow().policer();
        await("the cycle that killed it reported", () -> policer.lastReport().isPresent());   // the kill comes inside a cycle, its report at the end
        Instant seen = policer.lastReport().orElseThrow().snapshot().at();
        await("a later cycle", () -> policer.lastReport().orElseThrow().snapshot().at().isAfter(seen));
        assertThat(policer.lastReport().orElseThrow().snapshot().gpus().getFirst().processes())
                .filteredOn(p -> p.pid() == SERVER).singleElement().satisfies(p -> assertThat(p.role()).isEqualTo(Role.MPS_SERVER));
        assertThat(killed).containsExactly(102L);
        assertThat(terminates()).isEmpty();
        assertThat(events("n1")).noneMatch(e -> "UnknownGpuProcess".equals(e.getReason()) || "RogueGpuProcess".equals(e.getReason()));
        assertThat(events("neighbour")).isEmpty();
    }

    @Test void renamedProcess_inAPodWithNoBooking_isKilled() throws Exception {
        blueSupervisorReports();
        Pod plain = client.pods().inNamespace("default").resource(new PodBuilder().withNewMetadata().withName("plain").endMetadata()
                .withNewSpec().withNodeName("n1").addNewContainer().withName("cuda").withImage("nvcr.io/nvidia/pytorch:24.10-py3").endContainer()
                .endSpec().build()).create();
        String uid = plain.getMetadata().getUid();
        podProcess(300, uid, C_NEIGHBOUR);
        Files.writeString(proc.resolve("300/cmdline"), RENAMED);
        nvml.startProcess(0, 300, 133_000);
        start(ActionPolicy.TERMINATE);

        await("the renamed process killed", () -> killed.contains(300L));
        assertThat(killed).doesNotContain(SERVER);
    }

    @Test void overLimit_evict_deletesTheHogOnly_withAPrecondition() throws Exception {
        twoPods(20_000);
        start(ActionPolicy.EVICT);

        await("the hog evicted", () -> client.pods().inNamespace("default").withName("hog").get() == null);
        assertThat(dispatcher.log).anyMatch(l -> l.startsWith("DELETE /api/v1/namespaces/default/pods/hog"));
        assertThat(dispatcher.log).noneMatch(l -> l.contains("/eviction") || l.startsWith("DELETE /api/v1/namespaces/default/pods/neighbour"));
        assertThat(dispatcher.deleteBodies).anyMatch(b -> b.contains("\"preconditions\"") && b.contains("\"resourceVersion\""));
        await("an eviction event", () -> hasEvent("hog", "GpuPodEvicted"));
        assertThat(client.pods().inNamespace("default").withName("neighbour").get()).isNotNull();
        assertThat(terminates()).isEmpty();
    }

    /** The cost of deleting instead of evicting (docs/decisions/node-agent-least-privilege.md): a budget does not hold it back. */
    @Test void evict_disruptionBudget_doesNotHoldThePolicerBack() throws Exception {
        dispatcher.pdbBlocked.add("hog");
        twoPods(20_000);
        start(ActionPolicy.EVICT);

        await("the hog deleted", () -> client.pods().inNamespace("default").withName("hog").get() == null);
        assertThat(events("hog")).noneMatch(e -> "GpuPodEvictionBlocked".equals(e.getReason()));
    }

    @Test void podDeletion_endsItsClientsThroughTheDaemon() throws Exception {
        twoPods(3000);   // both under their limits
        start(ActionPolicy.TERMINATE);
        await("usage published", () -> annotation("hog", Names.ANN_USAGE) != null);
        assertThat(terminates()).isEmpty();

        // a finalizer keeps the pod after the DELETE, with its deletionTimestamp set, as kubelet's grace period would
        client.pods().inNamespace("default").withName("hog").edit(p -> {
            p.getMetadata().setFinalizers(List.of("mpshare.io/test"));
            return p;
        });
        client.pods().inNamespace("default").withName("hog").delete();
        await("the mock set deletionTimestamp", () -> {
            Pod p = client.pods().inNamespace("default").withName("hog").get();
            return p != null && p.getMetadata().getDeletionTimestamp() != null;
        });

        await("terminate_client for the deleted pod's client", () -> terminates().stream().anyMatch(c -> c.endsWith(" 101")));
        await("a Normal event that the clients were ended", () -> hasEvent("hog", "MpsClientsEnded"));
        assertThat(events("hog")).filteredOn(e -> "MpsClientsEnded".equals(e.getReason())).allMatch(e -> "Normal".equals(e.getType()));
        assertThat(terminates()).noneMatch(c -> c.endsWith(" 201"));
        assertThat(terminates()).filteredOn(c -> c.endsWith(" 101")).hasSize(1);
    }

    @Test void unknownHostProcess_isReportedOnTheNode_andNeverActedOn() throws Exception {
        Path d = Files.createDirectories(proc.resolve("900"));
        Files.writeString(d.resolve("cgroup"), "0::/user.slice/user-1000.slice/session-3.scope\n");
        Files.writeString(d.resolve("cmdline"), "python3\0");
        nvml.startProcess(0, 900, 9000);
        start(ActionPolicy.TERMINATE);

        await("an event on the Node", () -> hasEvent("n1", "UnknownGpuProcess"));
        Event e = events("n1").stream().filter(x -> "UnknownGpuProcess".equals(x.getReason())).findFirst().orElseThrow();
        assertThat(e.getInvolvedObject().getKind()).isEqualTo("Node");
        assertThat(killed).isEmpty();
        assertThat(terminates()).isEmpty();
    }

    @Test void rogueNonMpsProcessOfAPod_isKilled_neighbourUntouched() throws Exception {
        twoPods(3000);
        podProcess(102, hogUid, C_HOG);
        nvml.startProcess(0, 102, 1000);   // no MPS env: not a client
        start(ActionPolicy.TERMINATE);

        await("the rogue process killed", () -> killed.contains(102L));
        await("a rogue-process warning on the hog", () -> hasEvent("hog", "RogueGpuProcess"));
        assertThat(killed).containsExactly(102L);
        assertThat(terminates()).isEmpty();
        assertThat(events("neighbour")).isEmpty();
    }

    static Map<String, String> none() { return Map.of(); }
}
