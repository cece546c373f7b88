package io.mpshare.deviceplugin;

import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

class NodeHttpTest {
    @Test void healthz_problemThen503_elseOk() throws Exception {
        var problem = new AtomicReference<String>("not registered with kubelet yet");
        try (var http = new NodeHttp(new InetSocketAddress("127.0.0.1", 0), problem::get).start()) {
            var client = HttpClient.newHttpClient();
            var req = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + http.port() + "/healthz")).build();
            var r = client.send(req, HttpResponse.BodyHandlers.ofString());
            assertThat(r.statusCode()).isEqualTo(503);
            assertThat(r.body()).contains("not registered");
            problem.set(null);
            assertThat(client.send(req, HttpResponse.BodyHandlers.ofString()).statusCode()).isEqualTo(200);
        }
    }
}
