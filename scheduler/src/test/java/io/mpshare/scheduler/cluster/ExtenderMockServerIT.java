package io.mpshare.scheduler.cluster;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.mpshare.core.MemoryUnit;
import io.mpshare.core.Names;
import io.mpshare.core.codec.AllocationCodec;
import io.mpshare.core.ledger.Allocation;
import io.mpshare.core.ledger.Phase;
import io.mpshare.core.model.GpuDemand;
import io.mpshare.core.model.PodKey;
import io.mpshare.core.policy.BinpackPolicy;
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
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The whole extender against fabric8's mock API server in CRUD mode (with bindings emulated):
 * nodes and pods created → informers sync → filter → bind → annotations and binding on the pod →
 * extender restarted → the same ledger; deletes and finished pods release; stale assumptions expire.
 */
class ExtenderMockServerIT {
    /** How long an informer may take to deliver an event (a bounded poll, not a timed sleep). */
    private static final Duration INFORMER = Duration.ofSeconds(20);
    static final JsonMapper JSON = JsonMapper.builder().build();
    private KubernetesMockServer server;
    private KubernetesClient client;
    private final TestClock clock = new TestClock();
    private final HttpClient http = HttpClient.newHttpClient();
    private SchedulerExtender ext;

    @BeforeEach void setUp() {
        server = new KubernetesMockServer(new Context(), new MockWebServer(), new HashMap<>(), new BindingCrudDispatcher(), false);
        server.init();
        client = server.createClient();
        client.nodes().resource(Nodes.node("n1").gpus(8, 143_771).build()).create();
        client.nodes().resource(Nodes.node("n2").gpus(2, 16_384).build()).create();
        client.nodes().resource(Nodes.node("cpu-1").unlabelled().build()).create();
        // placed earlier by us, and by ACK gpushare
        var earlier = new Allocation(PodKey.of("default", "earlier"), "uid-earlier", "n1", List.of(0), List.of("GPU-n1-0"),
                GpuDemand.simple(10 * 1024, 0, 1, 512), Instant.parse("2026-11-30T02:00:00Z"), Phase.ASSIGNED);
        client.pods().resource(Pods.pod("earlier").uid("uid-earlier").gpuMem(10).on("n1").phase("Running")
                .annotations(AllocationCodec.encode(earlier, MemoryUnit.GIB)).build()).create();
        client.pods().resource(Pods.pod("ack").uid("uid-ack").gpuMem(4).on("n1").phase("Running")
                .annotation(Names.ACK_GPU_MEM_IDX, "3").annotation(Names.ACK_GPU_MEM_POD, "4").build()).create();
        client.pods().resource(Pods.pod("job-0").uid("uid-job-0").gpuMem(7).gpuCore(30).build()).create();
    }

    @AfterEach void tearDown() {
        if (ext != null) ext.close();
        client.close();
        io.mpshare.scheduler.MockApiServers.destroy(server, "ExtenderMockServerIT");
    }

    /** The extender without the requeue of refused pods (its PATCHes would race the tests' own edits of pending pods). */
    private static final ExtenderConfig CFG = ExtenderConfig.defaults();

    SchedulerExtender startExtender() throws Exception {
        return startExtender(new ExtenderConfig(0, CFG.unit(), CFG.reserveMib(), CFG.policy(), false, Duration.ofMinutes(5),
                Duration.ofHours(1), 4).withStart(Duration.ofSeconds(30), "it").withProbesAndRequeue(0, 0));
    }

    SchedulerExtender startExtender(ExtenderConfig config) throws Exception {
        var e = new SchedulerExtender(config, client, new BinpackPolicy(), clock);
        e.start();
        return e;
    }

    JsonNode post(String verb, String body) throws Exception {
        var r = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + ext.port() + Names.EXTENDER_PREFIX + "/" + verb))
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).isEqualTo(200);
        return JSON.readTree(r.body());
    }

    int get(String path) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + ext.port() + Names.EXTENDER_PREFIX + "/" + path)).build(),
                HttpResponse.BodyHandlers.ofString()).statusCode();
    }


    static String filterArgs(String pod, String ns) {
        return "{\"Pod\":{\"metadata\":{\"name\":\"" + pod + "\",\"namespace\":\"" + ns + "\"},\"spec\":{\"containers\":[{\"name\":\"main\","
                + "\"resources\":{\"limits\":{\"aliyun.com/gpu-mem\":\"7\",\"aliyun.com/gpu-core.percentage\":\"30\"}}}]}},"
                + "\"NodeNames\":[\"n1\",\"n2\",\"cpu-1\"]}";
    }

    @Test void filterBindRestart_sameLedger() throws Exception {
        ext = startExtender();
        assertThat(ext.ready()).isTrue();
        assertThat(get("readyz")).isEqualTo(200);
        // rebuilt from annotations: ours (ASSIGNED) and ACK's (BOUND, no reserve)
        assertThat(ext.ledger().node("n1").allocatedMib(0)).isEqualTo(10 * 1024 + 512);
        assertThat(ext.ledger().node("n1").allocatedMib(3)).isEqualTo(4 * 1024);
        assertThat(ext.ledger().node("n2").gpuCount()).isEqualTo(2);
        assertThat(ext.ledger().node("cpu-1")).isNull();

        JsonNode f = post("filter", filterArgs("job-0", "default"));
        assertThat(f.get("Error").asString()).isEmpty();
        assertThat(f.get("NodeNames")).hasSize(2);
        assertThat(f.get("FailedAndUnresolvableNodes").isEmpty()).as("no reasons once a node is kept").isTrue();
        JsonNode cpuOnly = post("filter", filterArgs("job-0", "default").replace("\"NodeNames\":[\"n1\",\"n2\",\"cpu-1\"]", "\"NodeNames\":[\"cpu-1\"]"));
        assertThat(cpuOnly.get("FailedAndUnresolvableNodes").get("cpu-1").asString()).contains("publishes no mpshare GPU inventory");

        String uid = client.pods().inNamespace("default").withName("job-0").get().getMetadata().getUid(); // the mock assigns its own
        String bindArgs = "{\"PodName\":\"job-0\",\"PodNamespace\":\"default\",\"PodUID\":\"" + uid + "\",\"Node\":\"n1\"}";
        JsonNode b = post("bind", bindArgs);
        assertThat(b.get("Error").asString()).isEmpty();
        Pod pod = client.pods().inNamespace("default").withName("job-0").get();
        assertThat(pod.getSpec().getNodeName()).isEqualTo("n1");
        assertThat(pod.getMetadata().getAnnotations().get(Names.ANN_ALLOCATION)).startsWith("v1;node=n1;gpus=");
        // a second bind of the same pod (kube-scheduler retrying) is answered idempotently
        assertThat(post("bind", bindArgs).get("Error").asString()).isEmpty();
        // and one to another node is refused with the reason
        assertThat(post("bind", bindArgs.replace("\"n1\"", "\"n2\"")).get("Error").asString())
                .contains("already bound to node n1");

        var key = PodKey.of("default", "job-0");
        Waits.until(INFORMER, () -> client.pods().inNamespace("default").withName("job-0").get().getSpec().getNodeName() != null, () -> "informer sees job-0 bound");
        var before = ext.ledger().accounting();
        var booked = ext.ledger().allocation(key).orElseThrow();
        assertThat(booked.phase()).isEqualTo(Phase.BOUND);
        ext.close();

        ext = startExtender();
        assertThat(ext.ledger().accounting()).isEqualTo(before);
        var again = ext.ledger().allocation(key).orElseThrow();
        assertThat(again.samePlacement(booked)).isTrue();
        assertThat(again.phase()).isEqualTo(Phase.BOUND);
        assertThat(ext.ledger().allocations()).hasSize(3);
    }

    @Test void deletedAndFinishedPods_release() throws Exception {
        ext = startExtender();
        assertThat(ext.ledger().allocation(PodKey.of("default", "earlier"))).isPresent();
        client.pods().inNamespace("default").withName("earlier").delete();
        Waits.until(INFORMER, () -> ext.ledger().allocation(PodKey.of("default", "earlier")).isEmpty(), () -> "earlier released");
        assertThat(ext.ledger().node("n1").allocatedMib(0)).isZero();

        client.pods().inNamespace("default").withName("ack").editStatus(p -> { p.getStatus().setPhase("Succeeded"); return p; });
        Waits.until(INFORMER, () -> ext.ledger().allocation(PodKey.of("default", "ack")).isEmpty(), () -> "ack released");
        assertThat(ext.ledger().node("n1").allocatedMib()).isZero();
    }

    @Test void nodeInventoryChanges_followed() throws Exception {
        ext = startExtender();
        client.nodes().resource(Nodes.node("n3").gpus(4, 81_920).build()).create();
        Waits.until(INFORMER, () -> ext.ledger().node("n3") != null, () -> "n3 known");
        assertThat(ext.ledger().node("n3").totalMib()).isEqualTo(4 * 81_920L);
        client.nodes().withName("n3").edit(n -> { n.getMetadata().getLabels().remove(Names.NODE_LABEL_SCHEDULE); return n; });
        Waits.until(INFORMER, () -> ext.ledger().node("n3") == null, () -> "n3 gone when unlabelled");
        client.nodes().resource(Nodes.node("bad").rawInventory("0|GPU-x|H200|lots|true").build()).create();
        Waits.until(INFORMER, () -> ext.ledger().node("bad") != null, () -> "bad node known without GPUs");
        assertThat(ext.ledger().node("bad").gpuCount()).isZero();
    }

    /**
     * Pending pods' allocation annotations book nothing (the extender's own reach a pod only inside its Binding, so on a
     * pending pod they are the tenant's); an assumed booking whose pod stays pending past the TTL expires.
     */
    @Test void staleAssumptions_expireAfterTtl_pendingPodsAnnotationsNotBooked() throws Exception {
        var half = new Allocation(PodKey.of("default", "half"), "uid-half", "n1", List.of(5), List.of("GPU-n1-5"),
                GpuDemand.simple(2 * 1024, 0, 1, 512), clock.instant(), Phase.ASSUMED);
        client.pods().resource(Pods.pod("half").uid("uid-half").gpuMem(2).annotations(AllocationCodec.encode(half, MemoryUnit.GIB))
                .annotation(Names.ANN_ASSIGNED, "true").build()).create();
        ext = startExtender();
        assertThat(ext.ledger().allocation(PodKey.of("default", "half"))).isEmpty();
        assertThat(ext.ledger().node("n1").allocatedMib(5)).isZero();

        // a booking left by a bind that failed: job-0 is pending, unannotated
        var jobKey = PodKey.of("default", "job-0");
        assertThat(ext.ledger().assume(jobKey, "", "n1", GpuDemand.simple(1024, 0, 1, 512), new BinpackPolicy()).toString()).contains("Assumed");
        assertThat(ext.expireNow()).isEmpty(); // younger than the TTL
        clock.advance(Duration.ofMinutes(6));
        assertThat(ext.expireNow()).extracting(Allocation::pod).containsExactly(jobKey);
        assertThat(ext.ledger().allocation(jobKey)).isEmpty();
    }

    /**
     * A pod the filter refused everywhere for lack of room is woken once the pod holding the room is deleted: the extender
     * writes {@code requeue.mpshare.io/at} on it through the real client (the update kube-scheduler retries it on), with the
     * pod's UID as precondition; the pod that still fits nowhere is left alone.
     */
    @Test void refusedPod_holderDeleted_requeueNoteWritten_onlyOnThePodThatFitsNow() throws Exception {
        for (int g : new int[] {1, 2, 3, 4, 5, 6, 7}) { // every n1 GPU but 0 (where earlier's 10 GiB sit) nearly full
            var full = new Allocation(PodKey.of("default", "full-" + g), "uid-full-" + g, "n1", List.of(g), List.of("GPU-n1-" + g),
                    GpuDemand.simple(130 * 1024, 0, 1, 512), clock.instant(), Phase.ASSIGNED);
            client.pods().resource(Pods.pod("full-" + g).uid("uid-full-" + g).gpuMem(130).on("n1").phase("Running")
                    .annotations(AllocationCodec.encode(full, MemoryUnit.GIB)).build()).create();
        }
        // the requeue on (20 pods/s); no re-read of refused nodes: the mock answers a fieldSelector on spec.nodeName with no pods
        ext = startExtender(new ExtenderConfig(0, CFG.unit(), CFG.reserveMib(), CFG.policy(), false, Duration.ofMinutes(5), Duration.ofHours(1), 4)
                .withGuards(CFG.holdTtl(), 0, CFG.http(), Set.of()).withStart(Duration.ofSeconds(30), "it").withProbesAndRequeue(0, 20));
        assertThat(ext.ledger().node("n1").allocatedMib(1)).as("rebuilt " + ext.ledger().accounting()).isEqualTo(130 * 1024 + 512);
        client.pods().resource(Pods.pod("wide").uid("uid-wide").gpuMem(135).build()).create();
        client.pods().resource(Pods.pod("huge").uid("uid-huge").gpuMem(141).build()).create();
        for (String name : List.of("wide", "huge")) {
            Waits.until(INFORMER, () -> client.pods().inNamespace("default").withName(name).get() != null, () -> name + " created");
            Pod p = client.pods().inNamespace("default").withName(name).get();
            JsonNode f = post("filter", "{\"Pod\":" + client.getKubernetesSerialization().asJson(p) + ",\"NodeNames\":[\"n1\",\"n2\"]}");
            assertThat(f.get("NodeNames")).as(name + " refused everywhere: " + f).isEmpty();
        }
        assertThat(requeueNote("wide")).isNull();

        client.pods().inNamespace("default").withName("earlier").delete();
        Waits.until(INFORMER, () -> requeueNote("wide") != null, () -> "wide woken");
        assertThat(requeueNote("wide")).contains("node n1 has room for it");
        assertThat(requeueNote("huge")).as("141 GiB + reserve fits no GPU even now").isNull();
    }

    private String requeueNote(String pod) {
        var a = client.pods().inNamespace("default").withName(pod).get().getMetadata().getAnnotations();
        return a == null ? null : a.get(Names.ANN_REQUEUE);
    }

    /**
     * Issue 12, items 5 and 8: the ledger still counts a pod the API server no longer has (its deletion not yet seen by the
     * informer, here: booked behind the informer's back); a filter that would refuse everywhere re-reads the node's pods
     * through the real client (fieldSelector spec.nodeName) and keeps the node.
     */
    @Test void filter_bookingOfPodTheApiServerNoLongerHas_reReadAndKept() throws Exception {
        ext = startExtender();
        for (int g = 0; g < 2; g++)
            ext.ledger().restore(new Allocation(PodKey.of("default", "deleted-" + g), "uid-d" + g, "n2", List.of(g), List.of("GPU-n2-" + g),
                    GpuDemand.simple(15 * 1024, 0, 1, 512), clock.instant(), Phase.BOUND));
        String body = "{\"Pod\":{\"metadata\":{\"name\":\"job-0\",\"namespace\":\"default\"},\"spec\":{\"containers\":[{\"name\":\"main\","
                + "\"resources\":{\"limits\":{\"aliyun.com/gpu-mem\":\"7\"}}}]}},\"NodeNames\":[\"n2\"]}";

        JsonNode f = post("filter", body);

        assertThat(f.get("Error").asString()).isEmpty();
        assertThat(f.get("NodeNames")).extracting(JsonNode::asString).containsExactly("n2");
        // the deleted pods' bookings are gone; what n2 holds is the pod's own: one node left, the filter held it for the bind
        assertThat(ext.ledger().node("n2").pods().keySet()).containsExactly(PodKey.of("default", "job-0"));
        assertThat(ext.ledger().allocation(PodKey.of("default", "job-0")).orElseThrow().phase()).isEqualTo(Phase.ASSUMED);
    }
}

