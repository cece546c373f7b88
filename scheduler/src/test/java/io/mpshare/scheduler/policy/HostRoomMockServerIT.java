package io.mpshare.scheduler.policy;

import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.mpshare.core.Names;
import io.mpshare.core.policy.TaskMix;
import io.mpshare.scheduler.ExtenderConfig;
import io.mpshare.scheduler.SchedulerExtender;
import io.mpshare.scheduler.TestClock;
import io.mpshare.testing.Nodes;
import io.mpshare.testing.Pods;
import io.mpshare.testing.Waits;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The extender as wired for production (SchedulerExtender: the default policy's host room on the node and pod
 * informers) against fabric8's mock API server: nodes' {@code status.allocatable} and pods' CPU requests reach
 * prioritize over HTTP, and a change in the cluster (a pod bound elsewhere, a node resized) moves the choice.
 */
class HostRoomMockServerIT {
    /** How long an informer may take to deliver an event (a bounded poll, not a timed sleep). */
    private static final Duration INFORMER = Duration.ofSeconds(20);
    private static final JsonMapper JSON = JsonMapper.builder().build();
    private KubernetesMockServer server;
    private KubernetesClient client;
    private final TestClock clock = new TestClock();
    private final HttpClient http = HttpClient.newHttpClient();
    private SchedulerExtender ext;
    private LearnedFragmentationPolicy policy;

    @BeforeEach void setUp() throws Exception {
        server = new KubernetesMockServer(new Context(), new MockWebServer(), new HashMap<>(), new io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher(), false);
        server.init();
        client = server.createClient();
        client.nodes().resource(Nodes.node("n1").gpus(1, 16_384).allocatable("6", "64Gi").build()).create();
        client.nodes().resource(Nodes.node("n2").gpus(1, 16_384).allocatable("16", "64Gi").build()).create();
        client.pods().resource(Pods.pod("p").uid("uid-p").gpuMem(4).cpu("3").memory("1Gi").build()).create();
        // the cluster runs 8 GiB pods with 4 cores: a node left with less than 4 cores strands its GPU for them
        var mix = new TaskMix(List.of(new TaskMix.Entry(1, 8 * 1024 + 512, 0, 0, 4_000, 0, 1)));
        policy = new LearnedFragmentationPolicy(false, new HostRoom(), mix, 1, Integer.MAX_VALUE);
        var cfg = ExtenderConfig.defaults();
        ext = new SchedulerExtender(new ExtenderConfig(0, cfg.unit(), cfg.reserveMib(), cfg.policy(), false, Duration.ofMinutes(5),
                Duration.ofHours(1), 2).withStart(Duration.ofSeconds(30), "it"), client, policy, clock);
        ext.start();
    }

    @AfterEach void tearDown() {
        if (ext != null) ext.close();
        client.close();
        io.mpshare.scheduler.MockApiServers.destroy(server, "HostRoomMockServerIT");
    }

    @Test void prioritize_nodesAllocatableAndBoundPods_fromTheInformers_moveTheChoice() throws Exception {
        Waits.until(INFORMER, () -> policy.host().ask(io.mpshare.core.model.PodKey.of("default", "p")).cpuMilli() == 3_000, () -> "the pod informer shows p's request");
        Waits.until(INFORMER, () -> ext.ledger().node("n2") != null
                && policy.host().cpuLeft(ext.ledger().node("n2"), null) == 16_000, () -> "the node informer shows n2's allocatable");
        assertThat(scores()).isEqualTo(Map.of("n1", 0, "n2", 10)); // n1 would keep 3 cores: its GPU stranded for the mix

        client.pods().resource(Pods.pod("big").uid("uid-big").cpu("12").on("n2").phase("Running").build()).create();
        var n1 = client.nodes().withName("n1").get();
        n1.getStatus().setAllocatable(Map.of(Names.RESOURCE_CPU, new Quantity("16"), Names.RESOURCE_MEMORY, new Quantity("64Gi")));
        client.nodes().resource(n1).updateStatus(); // allocatable is status: kubelet writes it through the status subresource
        var p = io.mpshare.core.model.PodKey.of("default", "p");
        // p's pipelining hold from the first prioritize is on n2: it counts for everyone but p
        Waits.until(INFORMER, () -> policy.host().cpuLeft(ext.ledger().node("n2"), null) == 1_000, () -> "n2 has 1 core left for others");
        assertThat(policy.host().cpuLeft(ext.ledger().node("n2"), p)).isEqualTo(4_000);
        Waits.until(INFORMER, () -> policy.host().cpuLeft(ext.ledger().node("n1"), p) == 16_000, () -> "n1 has 16 cores");
        assertThat(scores()).isEqualTo(Map.of("n1", 10, "n2", 0));
    }

    private Map<String, Integer> scores() throws Exception {
        String body = "{\"Pod\":{\"metadata\":{\"name\":\"p\",\"namespace\":\"default\",\"uid\":\"uid-p\"},\"spec\":{\"containers\":[{\"name\":\"main\","
                + "\"resources\":{\"limits\":{\"aliyun.com/gpu-mem\":\"4\"},\"requests\":{\"cpu\":\"3\"}}}]}},\"NodeNames\":[\"n1\",\"n2\"]}";
        var r = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + ext.port() + Names.EXTENDER_PREFIX + "/prioritize"))
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).isEqualTo(200);
        Map<String, Integer> out = new HashMap<>();
        for (JsonNode h : JSON.readTree(r.body())) out.put(h.get("Host").asString(), h.get("Score").asInt());
        return out;
    }

}
