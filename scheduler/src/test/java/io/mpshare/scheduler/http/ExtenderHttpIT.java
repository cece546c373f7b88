package io.mpshare.scheduler.http;

import io.mpshare.core.MemoryUnit;
import io.mpshare.core.Names;
import io.mpshare.core.ledger.Ledger;
import io.mpshare.core.model.GpuDemand;
import io.mpshare.core.model.PodKey;
import io.mpshare.core.policy.BinpackPolicy;
import io.mpshare.core.policy.PlacementEngine;
import io.mpshare.scheduler.TestClock;
import io.mpshare.scheduler.Wiring;
import io.mpshare.scheduler.bind.Binder;
import io.mpshare.scheduler.bind.FakePodApi;
import io.mpshare.scheduler.cycle.HeldRoom;
import io.mpshare.scheduler.cycle.PipelineHolds;
import io.mpshare.scheduler.metrics.ExtenderMetrics;
import io.mpshare.scheduler.verbs.Verbs;
import io.mpshare.testing.Nodes;
import io.mpshare.testing.Pods;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/** The extender over real HTTP, with kube-scheduler-shaped JSON; the ledger is preloaded, the API server is in memory. */
class ExtenderHttpIT {
    static final JsonMapper JSON = JsonMapper.builder().build();
    private final HttpClient http = HttpClient.newHttpClient();
    private Ledger ledger;
    private FakePodApi api;
    private ExtenderHttpServer server;
    private String base;

    @BeforeEach void start() throws IOException {
        ledger = new Ledger(new TestClock(), Duration.ofMinutes(5));
        ledger.upsertNode(Nodes.node("gpu-a").gpus(8, 143_771).inventory());
        ledger.upsertNode(Nodes.node("gpu-b").gpus(8, 143_771).inventory());
        ledger.upsertNode(Nodes.node("gpu-full").gpus(2, 16_384).inventory());
        ledger.upsertNode(Nodes.node("gpu-small").gpus(2, 4_096).inventory());
        ledger.upsertNode(Nodes.node("no-gpus").inventory());
        var engine = new PlacementEngine(ledger, new BinpackPolicy());
        for (int g = 0; g < 2; g++)
            assertThat(engine.assume(PodKey.of("x", "filler" + g), "", "gpu-full", GpuDemand.simple(15_000, 0, 1, 512)).toString()).contains("Assumed");
        var verbs = Wiring.verbs(engine);
        api = new FakePodApi();
        server = new ExtenderHttpServer(ExtenderHttpServer.Parts.of(new InetSocketAddress("127.0.0.1", 0), 4, verbs, Wiring.binder(verbs, api), new Inspect(ledger), new ExtenderMetrics(ledger), () -> true, "test"));
        server.start();
        base = "http://127.0.0.1:" + server.port() + Names.EXTENDER_PREFIX + "/";
    }

    @AfterEach void stop() { server.close(); }

    HttpResponse<String> post(String verb, String body) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(base + verb)).POST(HttpRequest.BodyPublishers.ofString(body)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    HttpResponse<String> get(String path) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(base + path)).GET().build(), HttpResponse.BodyHandlers.ofString());
    }

    static String resource(String name) throws IOException {
        try (var in = ExtenderHttpIT.class.getResourceAsStream("/kube-scheduler/" + name)) { return new String(in.readAllBytes(), StandardCharsets.UTF_8); }
    }

    /**
     * Two of five nodes kept: the refused three are left out without reasons (kube-scheduler drops them when a node
     * passes); asked of the refused three alone, each gets its reason.
     */
    @Test void filter_fullPod_answersWithGoFieldNamesAndReasons() throws Exception {
        var r = post("filter", resource("filter-args.json"));
        assertThat(r.statusCode()).isEqualTo(200);
        JsonNode j = JSON.readTree(r.body());
        assertThat(names(j)).containsExactlyInAnyOrder("Nodes", "NodeNames", "FailedNodes", "FailedAndUnresolvableNodes", "Error");
        assertThat(j.get("Error").asString()).isEmpty();
        assertThat(j.get("Nodes").isNull()).isTrue();
        assertThat(strings(j.get("NodeNames"))).containsExactly("gpu-a", "gpu-b");
        assertThat(j.get("FailedNodes").isEmpty()).isTrue();
        assertThat(j.get("FailedAndUnresolvableNodes").isEmpty()).isTrue();

        String refusedOnly = resource("filter-args.json").replace("\"NodeNames\": [\"gpu-a\", \"gpu-b\", ", "\"NodeNames\": [");
        assertThat(refusedOnly).contains("\"NodeNames\": [\"gpu-full\", \"cpu-only\", \"gpu-small\"]");
        j = JSON.readTree(post("filter", refusedOnly).body());
        assertThat(j.get("Error").asString()).isEmpty();
        assertThat(strings(j.get("NodeNames"))).isEmpty();
        assertThat(j.get("FailedNodes").get("gpu-full").asString()).doesNotContain("gpu-full").contains("7.5 GiB");
        assertThat(j.get("FailedAndUnresolvableNodes").get("cpu-only").asString()).contains("ack.node.gpu.schedule=mps");
        assertThat(j.get("FailedAndUnresolvableNodes").get("gpu-small").asString()).contains("the largest has 4 GiB");
    }

    /** With a shortlist, the filter keeps over the wire only the nodes the policy ranks best, in request order. */
    @Test void filter_shortlist_keepsTheBestRankedInRequestOrder() throws Exception {
        ledger.upsertNode(Nodes.node("gpu-c").gpus(1, 16_384).inventory());
        ledger.upsertNode(Nodes.node("gpu-d").gpus(1, 24_576).inventory());
        var engine = new PlacementEngine(ledger, new BinpackPolicy());
        var verbs = new Verbs(engine, Wiring.ASKS, PipelineHolds.off(engine), HeldRoom.NONE, 2);
        try (var shortlisted = new ExtenderHttpServer(ExtenderHttpServer.Parts.of(new InetSocketAddress("127.0.0.1", 0), 2, verbs, Wiring.binder(verbs, api),
                new Inspect(ledger), new ExtenderMetrics(ledger), () -> true, "test"))) {
            shortlisted.start();
            String body = "{\"Pod\":{\"metadata\":{\"name\":\"p\",\"namespace\":\"ml\",\"uid\":\"u-p\"},\"spec\":{\"containers\":[{\"name\":\"c\","
                    + "\"resources\":{\"limits\":{\"aliyun.com/gpu-mem\":\"7\"}}}]}},\"NodeNames\":[\"gpu-a\",\"gpu-c\",\"gpu-small\",\"gpu-b\",\"gpu-d\"]}";
            var r = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + shortlisted.port() + Names.EXTENDER_PREFIX + "/filter"))
                    .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
            JsonNode j = JSON.readTree(r.body());
            assertThat(j.get("Error").asString()).isEmpty();
            assertThat(strings(j.get("NodeNames"))).containsExactly("gpu-c", "gpu-d"); // the tightest fits; gpu-a and gpu-b fit too
            assertThat(j.get("FailedNodes").isEmpty()).isTrue();
            assertThat(j.get("FailedAndUnresolvableNodes").isEmpty()).isTrue();
        }
    }

    @Test void filter_fullNodes_echoesNodeObjects() throws Exception {
        String body = "{\"Pod\":{\"metadata\":{\"name\":\"p\"},\"spec\":{\"containers\":[{\"name\":\"c\",\"resources\":{\"limits\":{\"aliyun.com/gpu-mem\":\"7\"}}}]}},"
                + "\"Nodes\":{\"items\":[{\"metadata\":{\"name\":\"gpu-a\",\"uid\":\"a\"}},{\"metadata\":{\"name\":\"gpu-small\"}}]},\"NodeNames\":null}";
        JsonNode j = JSON.readTree(post("filter", body).body());
        assertThat(j.get("NodeNames").isNull()).isTrue();
        assertThat(j.get("Nodes").get("items")).hasSize(1);
        assertThat(j.get("Nodes").get("items").get(0).get("metadata").get("uid").asString()).isEqualTo("a");
        assertThat(j.get("FailedAndUnresolvableNodes").has("gpu-small")).isTrue();
    }

    @Test void filter_podWithoutGpu_passesThroughUntouched() throws Exception {
        String body = "{\"Pod\":{\"metadata\":{\"name\":\"web\"},\"spec\":{\"containers\":[{\"name\":\"c\",\"resources\":{\"limits\":{\"cpu\":\"1\"}}}]}},"
                + "\"NodeNames\":[\"cpu-1\",\"gpu-full\",\"no-gpus\"]}";
        JsonNode j = JSON.readTree(post("filter", body).body());
        assertThat(strings(j.get("NodeNames"))).containsExactly("cpu-1", "gpu-full", "no-gpus");
        assertThat(j.get("FailedNodes").size()).isZero();
    }

    @Test void prioritize_hostPriorityList() throws Exception {
        var r = post("prioritize", resource("filter-args.json"));
        JsonNode j = JSON.readTree(r.body());
        assertThat(j.isArray()).isTrue();
        assertThat(j).hasSize(5);
        assertThat(names(j.get(0))).containsExactly("Host", "Score");
        for (JsonNode e : j) assertThat(e.get("Score").asInt()).isBetween(0, 10);
        assertThat(j.get(0).get("Host").asString()).isEqualTo("gpu-a");
        assertThat(j.get(2).get("Score").asInt()).isZero(); // gpu-full does not fit
    }

    @Test void bind_annotatesAndBinds() throws Exception {
        api.put(Pods.pod("mps-sample-0-x7k2p").namespace("ml").uid("6f1c9a9e-2b0e-4d7a-9a57-1b2c3d4e5f60").gpuMem(14).gpuCore(60).gpuCount(2).build());
        var r = post("bind", resource("bind-args.json"));
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(JSON.readTree(r.body()).get("Error").asString()).isEmpty();
        var pod = api.pod(PodKey.of("ml", "mps-sample-0-x7k2p"));
        assertThat(pod.getSpec().getNodeName()).isEqualTo("gpu-a");
        assertThat(pod.getMetadata().getAnnotations().get(Names.ANN_ALLOCATION)).startsWith("v1;node=gpu-a;gpus=0,1;");
        assertThat(ledger.node("gpu-a").allocatedMib(1)).isEqualTo(7 * 1024 + 512);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            malformed json       | filter | {"Pod": {                                         | not valid JSON
            missing pod          | filter | {"NodeNames": ["gpu-a"]}                         | has no Pod
            missing node names   | filter | {"Pod": {"metadata": {"name": "p"}}}             | neither NodeNames nor Nodes
            absurd gpu-mem       | filter | {"Pod":{"metadata":{"name":"p"},"spec":{"containers":[{"name":"c","resources":{"limits":{"aliyun.com/gpu-mem":"1e400"}}}]}},"NodeNames":["gpu-a"]} | whole numbers
            huge gpu-mem         | filter | {"Pod":{"metadata":{"name":"p"},"spec":{"containers":[{"name":"c","resources":{"limits":{"aliyun.com/gpu-mem":"9223372036854775807"}}}]}},"NodeNames":["gpu-a"]} | far more than any GPU
            core over 100        | filter | {"Pod":{"metadata":{"name":"p"},"spec":{"containers":[{"name":"c","resources":{"limits":{"aliyun.com/gpu-mem":"1","aliyun.com/gpu-core.percentage":"250"}}}]}},"NodeNames":["gpu-a"]} | give 0 to 100
            uneven split         | filter | {"Pod":{"metadata":{"name":"p","labels":{"aliyun.com/gpu-count":"3"}},"spec":{"containers":[{"name":"c","resources":{"limits":{"aliyun.com/gpu-mem":"7"}}}]}},"NodeNames":["gpu-a"]} | split evenly
            bad gpu-count        | filter | {"Pod":{"metadata":{"name":"p","labels":{"aliyun.com/gpu-count":"lots"}},"spec":{"containers":[{"name":"c","resources":{"limits":{"aliyun.com/gpu-mem":"7"}}}]}},"NodeNames":["gpu-a"]} | gpu-count
            bind malformed       | bind   | {"PodName":                                      | not valid JSON
            bind missing node    | bind   | {"PodName":"p","PodNamespace":"default"}         | has no Node
            bind unknown pod     | bind   | {"PodName":"ghost","PodNamespace":"default","PodUID":"u","Node":"gpu-a"} | does not exist
            bind node without gpus | bind | {"PodName":"needy","PodNamespace":"default","PodUID":"u-needy","Node":"no-gpus"} | node no-gpus: node publishes no mpshare GPUs
            """)
    void badInput_clearError_ledgerIntact(String name, String verb, String body, String message) throws Exception {
        api.put(Pods.pod("needy").uid("u-needy").gpuMem(7).build());
        var before = ledger.accounting();
        var r = post(verb, body);
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(JSON.readTree(r.body()).get("Error").asString()).contains(message);
        assertThat(ledger.accounting()).isEqualTo(before);
        assertThat(ledger.allocations()).hasSize(2);
    }

    @Test void fuzz_mutatedRequests_alwaysAnswer200WithJson_ledgerIntact() throws Exception {
        var before = ledger.accounting();
        byte[] seed = resource("filter-args.json").getBytes(StandardCharsets.UTF_8);
        byte[] alphabet = "{}[]\":,0123456789-.eE truefalsnl\\\u00ff".getBytes(StandardCharsets.ISO_8859_1);
        var rnd = new Random(20261130);
        for (int i = 0; i < 300; i++) {
            byte[] b = seed.clone();
            int edits = 1 + rnd.nextInt(8);
            for (int e = 0; e < edits; e++) b[rnd.nextInt(b.length)] = alphabet[rnd.nextInt(alphabet.length)];
            int cut = rnd.nextInt(4) == 0 ? rnd.nextInt(b.length) : b.length;
            String verb = List.of("filter", "prioritize", "bind").get(rnd.nextInt(3));
            var r = http.send(HttpRequest.newBuilder(URI.create(base + verb)).POST(HttpRequest.BodyPublishers.ofByteArray(b, 0, cut)).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(r.statusCode()).as("case %d", i).isEqualTo(200);
            JsonNode j = JSON.readTree(r.body());
            assertThat(j.isArray() || j.has("Error")).as("case %d: %s", i, r.body()).isTrue();
        }
        assertThat(ledger.accounting()).isEqualTo(before);
    }

    @Test void getEndpoints() throws Exception {
        assertThat(get("healthz").statusCode()).isEqualTo(200);
        assertThat(get("readyz").statusCode()).isEqualTo(200);
        assertThat(JSON.readTree(get("version").body()).get("version").asString()).isEqualTo("test");
        JsonNode all = JSON.readTree(get("inspect").body());
        assertThat(all.get("nodes")).hasSize(5);
        JsonNode full = JSON.readTree(get("inspect/gpu-full").body());
        assertThat(full.get("nodes").get(0).get("gpus").get(0).get("allocatedMiB").asLong()).isEqualTo(15_512);
        assertThat(full.get("nodes").get(0).get("gpus").get(0).get("pods").get(0).get("pod").asString()).startsWith("x/filler");
        assertThat(JSON.readTree(get("inspect/nope").body()).get("Error").asString()).contains("nope");
        post("filter", resource("filter-args.json"));
        post("filter", "{");
        String metrics = get("metrics").body();
        assertThat(metrics).contains("mpshare_extender_request_duration_seconds_bucket{verb=\"filter\"")
                .contains("mpshare_extender_failures_total{reason=\"bad_request\",verb=\"filter\"} 1")
                .contains("mpshare_extender_gpu_allocated_mib{gpu=\"0\",node=\"gpu-full\"} 15512");
        assertThat(get("nothing").statusCode()).isEqualTo(404);
        assertThat(get("filter").statusCode()).isEqualTo(405);
    }

    private static List<String> names(JsonNode j) {
        List<String> out = new ArrayList<>();
        j.propertyNames().forEach(out::add);
        return out;
    }

    private static List<String> strings(JsonNode arr) {
        List<String> out = new ArrayList<>();
        for (JsonNode n : arr) out.add(n.asString());
        return out;
    }

}
