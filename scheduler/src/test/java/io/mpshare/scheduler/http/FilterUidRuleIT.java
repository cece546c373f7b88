package io.mpshare.scheduler.http;

import io.mpshare.core.MemoryUnit;
import io.mpshare.core.Names;
import io.mpshare.core.isolation.FaultDomains;
import io.mpshare.core.isolation.FaultDomains.Kind;
import io.mpshare.core.ledger.AssumeResult;
import io.mpshare.core.ledger.Ledger;
import io.mpshare.core.model.DemandResolver;
import io.mpshare.core.model.GpuDemand;
import io.mpshare.core.model.PodKey;
import io.mpshare.core.policy.PlacementEngine;
import io.mpshare.scheduler.TestClock;
import io.mpshare.scheduler.Wiring;
import io.mpshare.scheduler.bind.Binder;
import io.mpshare.scheduler.bind.FakePodApi;
import io.mpshare.scheduler.cycle.AskReader;
import io.mpshare.scheduler.cycle.PipelineHolds;
import io.mpshare.scheduler.metrics.ExtenderMetrics;
import io.mpshare.scheduler.policy.LearnedFragmentationPolicy;
import io.mpshare.scheduler.verbs.Verbs;
import io.mpshare.testing.Nodes;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import tools.jackson.databind.JsonNode;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The one-UID-per-daemon rule through the filter over real HTTP, with the default policy and the rule on (the
 * product's defaults): the names come as request bytes, so the answer is the index's (its UID summary per node). The
 * rule holds for pods of the node daemon (their namespace in {@code node} kind, as {@link Wiring#ASKS} reads every
 * namespace); a pod of a {@code tenant} domain has a daemon of its own and shares by room.
 */
class FilterUidRuleIT {
    private final HttpClient http = HttpClient.newHttpClient();
    private ExtenderHttpServer server;
    private String base;

    @BeforeEach void start() throws IOException {
        Ledger ledger = new Ledger(new TestClock(), Duration.ofMinutes(5));
        for (String n : List.of("uid-1000", "uid-1001", "two-uids", "no-uid", "full-1000"))
            ledger.upsertNode(Nodes.node(n).gpus(2, n.startsWith("full") ? 16_384 : 143_771).inventory());
        var engine = new PlacementEngine(ledger, new LearnedFragmentationPolicy(true));
        var booking = new PlacementEngine(ledger, new io.mpshare.core.policy.BinpackPolicy(false)); // two UIDs on a node: placed before the rule
        book(engine, "uid-1000", 1000, 8_192);
        book(engine, "uid-1001", 1001, 8_192);
        book(engine, "two-uids", 1000, 8_192);
        book(booking, "two-uids", 1001, 8_192);
        book(engine, "no-uid", -1, 8_192);
        book(engine, "full-1000", 1000, 15_000);
        book(engine, "full-1000", 1000, 15_000);
        this.engine = engine;
        serve(Wiring.ASKS);
    }

    private PlacementEngine engine;

    /** Serves the verbs over {@link #engine}, reading asks with {@code asks} (which namespace kinds). */
    private void serve(AskReader asks) throws IOException {
        if (server != null) server.close();
        Ledger ledger = engine.ledger();
        var verbs = new Verbs(engine, asks, PipelineHolds.off(engine));
        server = new ExtenderHttpServer(ExtenderHttpServer.Parts.of(new InetSocketAddress("127.0.0.1", 0), 2, verbs, Wiring.binder(verbs, new FakePodApi()), new Inspect(ledger), new ExtenderMetrics(ledger), () -> true, "test"));
        server.start();
        base = "http://127.0.0.1:" + server.port() + Names.EXTENDER_PREFIX + "/";
    }

    private int pods;

    private void book(PlacementEngine e, String node, long uid, long mib) {
        GpuDemand d = GpuDemand.simple(mib, 0, 1, 512);
        d = new GpuDemand(1, d.chargeMib(), 0, d.reserveMib(), d.requestedMib(), d.containers(), uid < 0 ? OptionalLong.empty() : OptionalLong.of(uid));
        assertThat(e.assume(PodKey.of("t", "booked-" + pods++), "", node, d)).isInstanceOf(AssumeResult.Assumed.class);
    }

    @AfterEach void stop() { server.close(); }

    /**
     * The nodes kept for each UID; the others are left out without reasons since a node was kept. Asked of the refused
     * nodes alone (the pod then fits nowhere), each says why: the UID, or the room first on the full node.
     */
    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            pod of UID 1000     | 1000 | uid-1000,no-uid          | uid-1001,two-uids
            pod of UID 1001     | 1001 | uid-1001,no-uid          | uid-1000,two-uids
            pod of UID 7        |    7 | no-uid                   | uid-1000,uid-1001,two-uids
            pod without UID     |   -1 | uid-1000,uid-1001,two-uids,no-uid |
            """)
    void filter_nodeKind_podUid_keepsNodesOfItsUidOrNone_refusesOthersWithTheUidReason(String name, long uid, String kept, String uidRefused) throws Exception {
        List<String> all = List.of("uid-1000", "uid-1001", "two-uids", "no-uid", "full-1000");
        JsonNode j = filter(uid, all);
        assertThat(j.get("Error").asString()).isEmpty();
        assertThat(strings(j.get("NodeNames"))).as(name).containsExactly(kept.split(","));
        assertThat(j.get("FailedNodes").isEmpty()).as(name).isTrue();

        List<String> refused = new ArrayList<>(all);
        refused.removeAll(List.of(kept.split(",")));
        j = filter(uid, refused);
        assertThat(strings(j.get("NodeNames"))).as(name).isEmpty();
        JsonNode failed = j.get("FailedNodes");
        List<String> refusedForUid = new ArrayList<>();
        failed.properties().forEach(e -> { if (e.getValue().asString().contains("serves another UID")) refusedForUid.add(e.getKey()); });
        assertThat(refusedForUid).as(name).containsExactly(uidRefused == null ? new String[0] : uidRefused.split(","));
        for (String n : refusedForUid)
            assertThat(failed.get(n).asString()).isEqualTo("its MPS daemon serves another UID (one UID at a time): run as that UID, or wait; pod runs as UID " + uid);
        // the full node is refused for its room first, whatever the UIDs
        assertThat(failed.get("full-1000").asString()).as(name).contains("GiB free").doesNotContain("UID");
    }

    /** A pod of a {@code tenant}-kind namespace shares by room with any UID; a pod's own label or annotation asking a kind counts for nothing. */
    @Test
    void filter_tenantKind_everyUidSharesByRoom_podLabelOrAnnotationAsksNothing() throws Exception {
        List<String> all = List.of("uid-1000", "uid-1001", "two-uids", "no-uid", "full-1000");
        String asksTenant = "\"labels\":{\"" + Names.LABEL_FAULT_DOMAIN + "\":\"tenant\"},\"annotations\":{\"" + Names.LABEL_FAULT_DOMAIN + "\":\"tenant\"},";
        // the namespace is node kind: the pod's own words do not lift the rule
        JsonNode j = filter(7, all, asksTenant);
        assertThat(strings(j.get("NodeNames"))).containsExactly("no-uid");

        serve(new AskReader(MemoryUnit.GIB, new DemandResolver(512), ns -> FaultDomains.kindOf(ns, ns.equals("default") ? "tenant" : null, Kind.NODE)));
        for (long uid : new long[] {7, 1000, 1001}) {
            j = filter(uid, all);
            assertThat(strings(j.get("NodeNames"))).as("UID %d", uid).containsExactly("uid-1000", "uid-1001", "two-uids", "no-uid");
        }
        // and a pod's label asking node kind does not bring the rule back
        String asksNode = "\"labels\":{\"" + Names.LABEL_FAULT_DOMAIN + "\":\"node\"},\"annotations\":{\"" + Names.LABEL_FAULT_DOMAIN + "\":\"node\"},";
        assertThat(strings(filter(7, all, asksNode).get("NodeNames"))).containsExactly("uid-1000", "uid-1001", "two-uids", "no-uid");
    }

    private JsonNode filter(long uid, List<String> nodes) throws Exception { return filter(uid, nodes, ""); }

    /** A filter for a pod of namespace {@code default} running as {@code uid}; {@code meta} adds fields to its metadata. */
    private JsonNode filter(long uid, List<String> nodes, String meta) throws Exception {
        String sc = uid < 0 ? "{}" : "{\"runAsUser\":" + uid + "}";
        String body = "{\"Pod\":{\"metadata\":{" + meta + "\"name\":\"p\",\"namespace\":\"default\",\"uid\":\"u\"},\"spec\":{\"securityContext\":" + sc
                + ",\"containers\":[{\"name\":\"c\",\"resources\":{\"limits\":{\"aliyun.com/gpu-mem\":\"7\"}}}]}},"
                + "\"NodeNames\":[\"" + String.join("\",\"", nodes) + "\"]}";
        var r = http.send(HttpRequest.newBuilder(URI.create(base + "filter")).POST(HttpRequest.BodyPublishers.ofString(body)).build(),
                HttpResponse.BodyHandlers.ofString());
        return ExtenderHttpIT.JSON.readTree(r.body());
    }

    private static List<String> strings(JsonNode array) {
        List<String> out = new ArrayList<>();
        array.forEach(n -> out.add(n.asString()));
        return out;
    }
}
