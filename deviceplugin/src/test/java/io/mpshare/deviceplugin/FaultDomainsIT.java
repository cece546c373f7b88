package io.mpshare.deviceplugin;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.mpshare.core.Names;
import io.mpshare.core.isolation.FaultDomains;
import io.mpshare.core.isolation.FaultDomains.Kind;
import io.mpshare.core.model.NodeInventory;
import io.mpshare.core.model.PodKey;
import io.mpshare.deviceplugin.allocation.AnswerBuilder;
import io.mpshare.deviceplugin.cluster.InventoryPublisher;
import io.mpshare.deviceplugin.domains.DomainNotices;
import io.mpshare.deviceplugin.domains.DomainsConfig;
import io.mpshare.deviceplugin.testkit.FakeKubelet;
import io.mpshare.deviceplugin.testkit.TestPods;
import io.mpshare.mps.Colour;
import io.mpshare.mps.MpsSupervisor;
import io.mpshare.mps.SupervisorConfig;
import io.mpshare.mps.SupervisorMetrics;
import io.mpshare.mps.SupervisorSocketServer;
import io.mpshare.mps.fake.FakeDaemonLauncher;
import io.mpshare.mps.fake.FakeDomains;
import io.mpshare.mps.fake.FakeMpsControl;
import io.mpshare.nvml.fake.FakeNvml;
import io.mpshare.testing.Waits;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.time.InstantSource;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Two tenants share one fake GPU in two MPS fault domains, and a trusted namespace in {@code node} kind keeps the
 * colour's node daemon: the whole agent (informers, Allocate over gRPC through the fake kubelet, Events through the
 * API server) against the supervisor's real {@code /domains} routes on its unix socket, states moved by hand.
 */
@EnableKubernetesMockClient(crud = true)
class FaultDomainsIT {
    static final Duration WAIT = Duration.ofSeconds(30);

    KubernetesClient client;
    @TempDir Path tmp;
    final FakeNvml nvml = new FakeNvml().addH200();
    final FakeMpsControl mps = new FakeMpsControl();
    final ScheduledExecutorService supervisorThread = Executors.newSingleThreadScheduledExecutor();
    FakeDomains domains;
    SupervisorSocketServer supervisor;
    FakeKubelet kubelet;
    DevicePluginNode node;
    NodeInventory inv;
    Path run;

    @BeforeEach void start() throws Exception {
        client.nodes().resource(new NodeBuilder().withNewMetadata().withName("n1").endMetadata().build()).create();
        namespace("team-a", null);
        namespace("team-b", null);
        namespace("trusted", "node");
        run = tmp.resolve("run");
        var s = new MpsSupervisor(SupervisorConfig.defaults(Colour.BLUE, run), new FakeDaemonLauncher(mps), mps, supervisorThread,
                InstantSource.system(), new SupervisorMetrics(Colour.BLUE));
        domains = new FakeDomains(Colour.BLUE, run, InstantSource.system()).serveAtOnce(true);
        supervisor = new SupervisorSocketServer(s, domains, new SupervisorMetrics(Colour.BLUE), Colour.BLUE.supervisorSocket(run)).start();
        Path dir = tmp.resolve("device-plugins");
        Path podRes = tmp.resolve("pod-resources/kubelet.sock");
        kubelet = new FakeKubelet(dir, podRes).start();
        var cfg = DevicePluginConfig.defaults("n1").withSockets(dir, kubelet.socket(), podRes).withRunDir(run, false)
                .withPeriods(Duration.ofMillis(500), Duration.ofSeconds(1), Duration.ofMillis(100)).withPodFieldSelector(false)
                .withFallbackBudget(WAIT)
                .withDomains(DomainsConfig.defaults().withClusterDefault(Kind.TENANT).withDaemonWait(Duration.ofSeconds(8)));
        node = DevicePluginNode.start(cfg, DevicePluginNode.Io.of(nvml, client, c -> mps::daemonUp, run));
        inv = InventoryPublisher.readHardware(nvml, "n1");
        kubelet.awaitList(Names.RESOURCE_GPU_MEM, l -> l.getDevicesCount() > 0, WAIT);
    }

    @AfterEach void stop() {
        if (node != null) node.close();
        if (kubelet != null) kubelet.close();
        if (supervisor != null) supervisor.close();
        supervisorThread.shutdownNow();
    }

    void namespace(String name, String kind) {
        var b = new NamespaceBuilder().withNewMetadata().withName(name).endMetadata();
        if (kind != null) b.editMetadata().addToLabels(Names.LABEL_FAULT_DOMAIN, kind).endMetadata();
        client.namespaces().resource(b.build()).create();
    }

    Pod create(TestPods p) throws InterruptedException {
        Pod pod = p.on("n1").placed(inv, 0).build();
        long v = node.pods().version();
        client.pods().inNamespace(pod.getMetadata().getNamespace()).resource(pod).create();
        Waits.until(WAIT, () -> node.pods().version() > v && node.pods().get(key(pod)).isPresent(), () -> "informer sees " + key(pod));
        return pod;
    }

    static PodKey key(Pod p) { return PodKey.of(p.getMetadata().getNamespace(), p.getMetadata().getName()); }

    List<Event> events(String namespace) { return client.v1().events().inNamespace(namespace).list().getItems(); }

    @Test void twoTenantsTwoDomains_aFaultTellsOnlyItsTenant_aNewPodOfItIsAdmittedOnceItServes_trustedKeepsTheNodeDaemon() throws Exception {
        create(TestPods.pod("a1").namespace("team-a").runAsUser(1000).mem("main", 7));
        create(TestPods.pod("b1").namespace("team-b").runAsUser(2000).mem("main", 7));
        create(TestPods.pod("seed").namespace("trusted").hostIPC().mem("mps", 7));

        var a1 = kubelet.admit(PodKey.of("team-a", "a1"), "main", Names.RESOURCE_GPU_MEM, 7);
        var b1 = kubelet.admit(PodKey.of("team-b", "b1"), "main", Names.RESOURCE_GPU_MEM, 7);
        var seed = kubelet.admit(PodKey.of("trusted", "seed"), "mps", Names.RESOURCE_GPU_MEM, 7);
        String idA = a1.getEnvsMap().get(AnswerBuilder.ENV_DOMAIN), idB = b1.getEnvsMap().get(AnswerBuilder.ENV_DOMAIN);
        assertThat(idA).startsWith("t-").isNotEqualTo(idB);
        assertThat(idB).startsWith("t-");
        assertThat(a1.getEnvsMap()).containsEntry(Names.ENV_MPS_PIPE, run.resolve("blue/d/" + idA + "/pipe").toString());
        assertThat(a1.getMounts(0).getHostPath()).isEqualTo(run.resolve("blue/d/" + idA + "/pipe").toString());
        assertThat(a1.getMounts(0).getReadOnly()).isTrue();
        assertThat(seed.getEnvsMap()).containsEntry(Names.ENV_MPS_PIPE, run.resolve("blue/pipe").toString())
                .containsEntry(AnswerBuilder.ENV_DOMAIN, FaultDomains.NODE_DAEMON);
        assertThat(domains.requests()).anySatisfy(r -> assertThat(r).startsWith("PUT " + idA + " GPU-fake-0 tenant "))
                .anySatisfy(r -> assertThat(r).startsWith("PUT " + idB + " GPU-fake-0 tenant "));

        domains.fault(idA, List.of(4242L));
        Waits.until(WAIT, () -> events("team-a").stream().anyMatch(e -> DomainNotices.REASON_FAULT.equals(e.getReason())), () -> "team-a's fault Event");
        Event e = events("team-a").stream().filter(x -> DomainNotices.REASON_FAULT.equals(x.getReason())).findFirst().orElseThrow();
        assertThat(e.getInvolvedObject().getName()).isEqualTo("a1");
        assertThat(e.getMessage()).contains("GPU fault in MPS domain " + idA).contains("pids 4242").contains("pods sharing the domain: team-a/a1");
        assertThat(events("team-b")).noneMatch(x -> DomainNotices.REASON_FAULT.equals(x.getReason()));
        assertThat(kubelet.latest(Names.RESOURCE_GPU_MEM).getDevicesList()).as("the GPU stays Healthy for team-b (domain health)")
                .allMatch(d -> d.getHealth().equals("Healthy"));

        create(TestPods.pod("a2").namespace("team-a").runAsUser(1000).mem("main", 7));
        try (var exec = Executors.newSingleThreadExecutor()) {
            Future<Map<String, String>> a2 = exec.submit(() -> kubelet.admit(PodKey.of("team-a", "a2"), "main", Names.RESOURCE_GPU_MEM, 7).getEnvsMap());
            domains.recover(idA);
            assertThat(a2.get()).containsEntry(AnswerBuilder.ENV_DOMAIN, idA);
        }
    }
}
