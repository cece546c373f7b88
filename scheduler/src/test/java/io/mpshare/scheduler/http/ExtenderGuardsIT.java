package io.mpshare.scheduler.http;

import io.mpshare.core.MemoryUnit;
import io.mpshare.core.Names;
import io.mpshare.core.ledger.Ledger;
import io.mpshare.core.model.DemandResolver;
import io.mpshare.core.model.GpuDemand;
import io.mpshare.core.model.PodKey;
import io.mpshare.core.policy.BinpackPolicy;
import io.mpshare.core.policy.PlacementEngine;
import io.mpshare.scheduler.TestClock;
import io.mpshare.scheduler.Wiring;
import io.mpshare.scheduler.bind.Binder;
import io.mpshare.scheduler.bind.FakePodApi;
import io.mpshare.scheduler.cluster.StaleRoomCheck;
import io.mpshare.scheduler.metrics.ExtenderMetrics;
import io.mpshare.scheduler.verbs.Verbs;
import io.mpshare.testing.Nodes;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

import java.io.IOException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.BooleanSupplier;

import static io.mpshare.scheduler.http.ExtenderHttpIT.JSON;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

/** What issue 12 asked of the HTTP face: answers only from a synced view, a body cap, readable reasons, verbs only for kube-scheduler. */
class ExtenderGuardsIT {
    private final Ledger ledger = new Ledger(new TestClock(), Duration.ofMinutes(5));
    private final ExtenderMetrics metrics = new ExtenderMetrics(ledger);
    private ExtenderHttpServer server;

    private String serve(InetSocketAddress at, HttpOptions options, BooleanSupplier ready) throws IOException {
        var verbs = Wiring.verbs(new PlacementEngine(ledger, new BinpackPolicy()));
        server = new ExtenderHttpServer(ExtenderHttpServer.Parts.of(at, 2, verbs, Wiring.binder(verbs, new FakePodApi()), new Inspect(ledger), metrics, ready, "test").withOptions(options).withRecheck(StaleRoomCheck.off()));
        server.start();
        return (options.tls() == null ? "http" : "https") + "://127.0.0.1:" + server.port() + Names.EXTENDER_PREFIX + "/";
    }

    @AfterEach void stop() { if (server != null) server.close(); }

    static HttpResponse<String> post(HttpClient http, String url, String body) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(url)).POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
    }

    static String filterBody(String mem, String core, List<String> nodes) {
        return "{\"Pod\":{\"metadata\":{\"name\":\"p\",\"namespace\":\"default\"},\"spec\":{\"containers\":[{\"name\":\"c\",\"resources\":{\"limits\":{"
                + "\"aliyun.com/gpu-mem\":\"" + mem + "\"" + (core == null ? "" : ",\"aliyun.com/gpu-core.percentage\":\"" + core + "\"")
                + "}}}]}},\"NodeNames\":[\"" + String.join("\",\"", nodes) + "\"]}";
    }

    /** Issue 12, item 7: restarted, the extender must not answer "no inventory" from an empty view; an Error makes kube-scheduler retry. */
    @Test void verbs_beforeSync_answerErrorKubeSchedulerRetries() throws Exception {
        var http = HttpClient.newHttpClient();
        String base = serve(new InetSocketAddress("127.0.0.1", 0), HttpOptions.defaults(), () -> false);
        JsonNode f = JSON.readTree(post(http, base + "filter", filterBody("7", null, List.of("n1"))).body());
        assertThat(f.get("Error").asString()).contains("has not finished reading", "retry");
        assertThat(f.get("FailedAndUnresolvableNodes")).isEmpty();
        assertThat(JSON.readTree(post(http, base + "bind", "{\"PodName\":\"p\",\"PodNamespace\":\"default\",\"Node\":\"n1\"}").body())
                .get("Error").asString()).contains("has not finished reading");
        assertThat(post(http, base + "prioritize", filterBody("7", null, List.of("n1"))).body()).isEqualTo("[]");
        assertThat(metrics.failures("filter", "not_synced")).isEqualTo(1);
        assertThat(metrics.failures("prioritize", "not_synced")).isEqualTo(1);
    }

    /** Issue 12, item 13: a body past the cap is refused with an Error that names the flag, and never read in full. */
    @Test void filter_bodyOverCap_clearErrorNothingBooked() throws Exception {
        var http = HttpClient.newHttpClient();
        String base = serve(new InetSocketAddress("127.0.0.1", 0), new HttpOptions(64 * 1024, false, null), () -> true);
        List<String> many = new ArrayList<>(Collections.nCopies(20_000, "gpu-node-000000"));
        var r = post(http, base + "filter", filterBody("7", null, many));
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(JSON.readTree(r.body()).get("Error").asString()).contains("above the extender's limit of 65536 bytes", "--max-request-bytes");
        assertThat(metrics.failures("filter", "bad_request")).isEqualTo(1);
    }

    /** Issue 12, items 15 and 6: prioritize cannot carry an Error; bad input is a warning and a counted failure, and says what was wrong. */
    @Test void prioritize_badInput_countedAndSaysWhat() throws Exception {
        var http = HttpClient.newHttpClient();
        String base = serve(new InetSocketAddress("127.0.0.1", 0), HttpOptions.defaults(), () -> true);
        assertThat(post(http, base + "prioritize", "{\"Pod\": 5, \"NodeNames\": [\"n1\"]}").body()).isEqualTo("[]");
        assertThat(metrics.failures("prioritize", "bad_request")).isEqualTo(1);
        var f = JSON.readTree(post(http, base + "filter", "{\"Pod\": 5, \"NodeNames\": [\"n1\"]}").body());
        assertThat(f.get("Error").asString()).isEqualTo("Pod must be a JSON object, found a number");
    }

    /**
     * Issue 12, items 1 and 2: kube-scheduler groups the reasons as "N reason", formats the message printf-style and
     * cuts it at 1,024 characters. Over 30 nodes in every state, the message it would build stays whole and readable.
     */
    @Test void filter_thirtyNodesEveryState_kubeSchedulerMessageUnder1024NoPercent() throws Exception {
        var engine = new PlacementEngine(ledger, new BinpackPolicy());
        List<String> names = new ArrayList<>();
        for (int i = 0; i < 30; i++) {
            String n = "node-" + i;
            names.add(n);
            switch (i % 6) {
                case 0, 1 -> { // memory nearly full, each by a different amount
                    ledger.upsertNode(Nodes.node(n).gpus(8, 143_771).inventory());
                    for (int g = 0; g < 8; g++) engine.assume(PodKey.of("x", n + "-" + g), "", n, GpuDemand.simple(138_000 + i * 97 + g, 0, 1, 512));
                }
                case 2 -> { // memory free, cores taken
                    ledger.upsertNode(Nodes.node(n).gpus(8, 143_771).inventory());
                    for (int g = 0; g < 8; g++) engine.assume(PodKey.of("x", n + "-" + g), "", n, GpuDemand.simple(1024, 80 + i % 7, 1, 512));
                }
                case 3 -> ledger.upsertNode(Nodes.node(n).gpus(4, 4_096 + i).inventory()); // GPUs too small
                case 4 -> ledger.upsertNode(Nodes.node(n).gpu(143_771, false).inventory()); // unhealthy
                default -> { } // not an mpshare node
            }
        }
        var http = HttpClient.newHttpClient();
        String base = serve(new InetSocketAddress("127.0.0.1", 0), HttpOptions.defaults(), () -> true);
        JsonNode f = JSON.readTree(post(http, base + "filter", filterBody("7", "30", names)).body());
        Map<String, Integer> grouped = new TreeMap<>();
        for (String k : List.of("FailedNodes", "FailedAndUnresolvableNodes"))
            f.get(k).properties().forEach(e -> grouped.merge(e.getValue().asString(), 1, Integer::sum));
        List<String> parts = new ArrayList<>();
        grouped.forEach((reason, n) -> parts.add(n + " " + reason));
        Collections.sort(parts);
        String message = "0/30 nodes are available: " + String.join(", ", parts) + ". preemption: 0/30 nodes are available: "
                + "30 Preemption is not helpful for scheduling.";
        assertThat(grouped.values().stream().mapToInt(Integer::intValue).sum()).isEqualTo(30);
        assertThat(grouped).as(String.join("\n", grouped.keySet())).hasSizeLessThanOrEqualTo(5);
        assertThat(message).doesNotContain("%").doesNotContain("node-").hasSizeLessThan(1024);
        assertThat(message).contains("lower aliyun.com/gpu-mem", "lower aliyun.com/gpu-core.percentage", "label it ack.node.gpu.schedule=mps");
    }

    /** Issue 12, item 9, bundled mode: the verbs answer loopback callers only; probes and metrics stay reachable. */
    @Test void verbs_loopbackOnly_otherAddressRefused_getEndpointsOpen() throws Exception {
        InetAddress own = ownAddress();
        assumeThat(own).as("a non-loopback IPv4 address on this machine").isNotNull();
        var http = HttpClient.newHttpClient();
        serve(new InetSocketAddress("0.0.0.0", 0), new HttpOptions(HttpOptions.DEFAULT_MAX_REQUEST_BYTES, true, null), () -> true);
        String remote = "http://" + own.getHostAddress() + ":" + server.port() + Names.EXTENDER_PREFIX + "/";
        String local = "http://127.0.0.1:" + server.port() + Names.EXTENDER_PREFIX + "/";
        var refused = post(http, remote + "bind", "{\"PodName\":\"p\",\"PodNamespace\":\"default\",\"Node\":\"n1\"}");
        assertThat(refused.statusCode()).isEqualTo(403);
        assertThat(refused.body()).contains("answers only kube-scheduler", "127.0.0.1");
        assertThat(post(http, local + "filter", filterBody("7", null, List.of("n1"))).statusCode()).isEqualTo(200);
        assertThat(http.send(HttpRequest.newBuilder(URI.create(remote + "readyz")).build(), HttpResponse.BodyHandlers.ofString()).statusCode()).isEqualTo(200);
        assertThat(metrics.failures("bind", "forbidden")).isEqualTo(1);
    }

    /** Issue 12, item 9, extender-only mode: HTTPS; the verbs need a client certificate the configured CA signed. */
    @Test void verbs_overTls_clientCertificateRequired(@TempDir Path dir) throws Exception {
        var server = TestCerts.create(dir, "extender");
        var client = TestCerts.create(dir, "kube-scheduler");
        var stranger = server; // self-signed, and not by the client CA
        String base = serve(new InetSocketAddress("127.0.0.1", 0), new HttpOptions(HttpOptions.DEFAULT_MAX_REQUEST_BYTES, false,
                new TlsFiles(server.certPem(), server.keyPem(), client.certPem())), () -> true);
        String body = filterBody("7", null, List.of("n1"));

        var withCert = HttpClient.newBuilder().sslContext(TestCerts.clientContext(client, server)).build();
        var withoutCert = HttpClient.newBuilder().sslContext(TestCerts.clientContext(null, server)).build();
        var wrongCert = HttpClient.newBuilder().sslContext(TestCerts.clientContext(stranger, server)).build();

        assertThat(post(withCert, base + "filter", body).statusCode()).isEqualTo(200);
        assertThat(post(withoutCert, base + "filter", body).statusCode()).isEqualTo(403);
        assertThat(withoutCert.send(HttpRequest.newBuilder(URI.create(base + "healthz")).build(), HttpResponse.BodyHandlers.ofString()).statusCode()).isEqualTo(200);
        int wrong;
        try { wrong = post(wrongCert, base + "bind", "{}").statusCode(); } catch (IOException handshakeRefused) { wrong = -1; }
        assertThat(wrong).as("a certificate the CA did not sign").isIn(-1, 403);
    }

    private static InetAddress ownAddress() throws IOException {
        for (NetworkInterface ni : Collections.list(NetworkInterface.getNetworkInterfaces())) {
            if (!ni.isUp() || ni.isLoopback()) continue;
            for (InetAddress a : Collections.list(ni.getInetAddresses())) if (a instanceof Inet4Address && !a.isLoopbackAddress()) return a;
        }
        return null;
    }
}
