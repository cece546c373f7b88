package io.mpshare.scheduler.http;

import io.fabric8.kubernetes.api.model.Pod;
import io.mpshare.core.MemoryUnit;
import io.mpshare.core.Names;
import io.mpshare.core.ledger.Ledger;
import io.mpshare.core.model.PodKey;
import io.mpshare.core.policy.BinpackPolicy;
import io.mpshare.core.policy.PlacementEngine;
import io.mpshare.kube.KubePod;
import io.mpshare.kube.PodApi;
import io.mpshare.scheduler.TestClock;
import io.mpshare.scheduler.Wiring;
import io.mpshare.scheduler.bind.Binder;
import io.mpshare.scheduler.bind.FakePodApi;
import io.mpshare.scheduler.metrics.ExtenderMetrics;
import io.mpshare.testing.Nodes;
import io.mpshare.testing.Pods;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Binds wait on the API server; they must not hold the workers that answer filter and prioritize (kube-scheduler's
 * serial scheduling cycle waits for those while its binds run asynchronously). One worker, three binds stuck in the
 * API server: a filter and a prioritize are still answered, and the binds complete once the API server answers.
 */
class BindOffWorkersIT {
    private final HttpClient http = HttpClient.newHttpClient();
    private ExtenderHttpServer server;

    /** The in-memory API server, whose reads wait until {@code release} opens; {@code entered} counts the waiting reads. */
    static final class StalledApi implements PodApi {
        final FakePodApi api = new FakePodApi();
        final CountDownLatch entered;
        final CountDownLatch release = new CountDownLatch(1);

        StalledApi(int binds) { entered = new CountDownLatch(binds); }

        @Override public KubePod get(PodKey pod) throws Failure {
            entered.countDown();
            try { release.await(); } catch (InterruptedException e) { Thread.currentThread().interrupt(); }
            return api.get(pod);
        }

        @Override public void bind(PodKey pod, String uid, String node, Map<String, String> annotations) throws Failure {
            api.bind(pod, uid, node, annotations);
        }
    }

    @AfterEach void stop() { if (server != null) server.close(); }

    @Test void bind_apiServerSlow_filterAndPrioritizeStillAnswered() throws Exception {
        var ledger = new Ledger(new TestClock(), Duration.ofMinutes(5));
        ledger.upsertNode(Nodes.node("gpu-a").gpus(8, 143_771).inventory());
        var engine = new PlacementEngine(ledger, new BinpackPolicy());
        var verbs = Wiring.verbs(engine);
        int binds = 3;
        var api = new StalledApi(binds);
        for (int i = 0; i < binds; i++) api.api.put(Pods.pod("b" + i).namespace("ns").uid("u" + i).gpuMem(7).build());
        server = new ExtenderHttpServer(ExtenderHttpServer.Parts.of(new InetSocketAddress("127.0.0.1", 0), 1, verbs, Wiring.binder(verbs, api), new Inspect(ledger), new ExtenderMetrics(ledger), () -> true, "test"));
        server.start();
        String base = "http://127.0.0.1:" + server.port() + Names.EXTENDER_PREFIX + "/";

        List<CompletableFuture<HttpResponse<String>>> bound = new ArrayList<>();
        for (int i = 0; i < binds; i++)
            bound.add(http.sendAsync(post(base + "bind", "{\"PodName\":\"b" + i + "\",\"PodNamespace\":\"ns\",\"PodUID\":\"u" + i + "\",\"Node\":\"gpu-a\"}"),
                    HttpResponse.BodyHandlers.ofString()));
        // all three binds wait on the API server at once (on one shared worker only the first would get there)
        assertThat(api.entered.await(60, java.util.concurrent.TimeUnit.SECONDS)).as("binds waiting on the API server together").isTrue();

        String args = "{\"Pod\":{\"metadata\":{\"name\":\"p\",\"namespace\":\"ns\"},\"spec\":{\"containers\":[{\"name\":\"c\",\"resources\":{\"limits\":{\"aliyun.com/gpu-mem\":\"7\"}}}]}},"
                + "\"NodeNames\":[\"gpu-a\"]}";
        var filter = http.send(post(base + "filter", args), HttpResponse.BodyHandlers.ofString());
        var prioritize = http.send(post(base + "prioritize", args), HttpResponse.BodyHandlers.ofString());
        assertThat(filter.body()).contains("\"NodeNames\":[\"gpu-a\"]");
        assertThat(prioritize.body()).contains("\"Host\":\"gpu-a\"");
        assertThat(bound).noneMatch(CompletableFuture::isDone);

        api.release.countDown();
        for (var f : bound) assertThat(f.get().body()).isEqualTo("{\"Error\":\"\"}");
        for (int i = 0; i < binds; i++) assertThat(api.api.pod(PodKey.of("ns", "b" + i)).getSpec().getNodeName()).isEqualTo("gpu-a");
    }

    /** A guard against a hang (the old behaviour), not a timing assertion. */
    private static HttpRequest post(String url, String body) {
        return HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(60)).POST(HttpRequest.BodyPublishers.ofString(body)).build();
    }
}
