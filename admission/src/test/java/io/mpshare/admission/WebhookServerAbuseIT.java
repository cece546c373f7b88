package io.mpshare.admission;

import io.fabric8.kubernetes.api.model.admission.v1.AdmissionReview;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.mpshare.admission.review.PodAdmission;
import io.mpshare.admission.tls.Pem;
import io.mpshare.admission.tls.SelfSigned;
import io.mpshare.admission.tls.ServingCertificate;
import io.mpshare.core.Names;
import io.mpshare.core.validation.AdmissionRules;
import io.mpshare.core.validation.PodValidator;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.security.KeyStore;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The webhook keeps answering real reviews while clients that stall or send too much hold connections to it (with
 * {@code failurePolicy: Fail}, a webhook that stops answering stops every pod CREATE). Before: eight connections that
 * each sent one byte held all eight workers and a real review failed after kube-apiserver's 5 s; two 8 MiB reviews at
 * once ended a 230 MB heap. The only time bound asserted is the one kube-apiserver applies: the chart's
 * {@code timeoutSeconds} (5 s).
 */
class WebhookServerAbuseIT {
    private static final KubernetesSerialization JSON = new KubernetesSerialization();
    /** The chart's webhook.timeoutSeconds: what kube-apiserver waits for an answer before the failure policy applies. */
    private static final Duration API_SERVER_TIMEOUT = Duration.ofSeconds(5);
    private static ServingCertificate cert;
    private static SSLContext trusting;
    private static HttpClient client;
    private final List<Socket> held = new ArrayList<>();

    @BeforeAll
    static void certificate() throws Exception {
        cert = SelfSigned.create(List.of("localhost"), Instant.now(), Duration.ofDays(1));
        KeyStore ts = KeyStore.getInstance("PKCS12");
        ts.load(null, null);
        ts.setCertificateEntry("ca", Pem.readCertificates(cert.caPem(), "ca").getFirst());
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(ts);
        trusting = SSLContext.getInstance("TLS");
        trusting.init(null, tmf.getTrustManagers(), null);
        client = HttpClient.newBuilder().sslContext(trusting).connectTimeout(API_SERVER_TIMEOUT).build();
    }

    @AfterAll
    static void close() { client.close(); }

    private static WebhookServer server(PodAdmission admission, WebhookServer.Limits limits) throws IOException {
        return new WebhookServer(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), cert.sslContext(), admission, JSON, limits);
    }

    private static PodAdmission admission(java.util.function.Supplier<OptionalLong> largest) {
        return new PodAdmission(new PodValidator(AdmissionRules.defaults(Set.of("mpshare-system"))), largest, Names.SCHEDULER_NAME, JSON);
    }

    /** POSTs a review as kube-apiserver does: answered within its timeout, or an exception. Prints how long it took (the figure docs/webhook.md quotes). */
    private static HttpResponse<String> post(WebhookServer s, String body) throws Exception {
        long t0 = System.nanoTime();
        try {
            return send(s, body);
        } finally {
            System.out.printf("review of %d bytes answered after %.1f ms%n", body.length(), (System.nanoTime() - t0) / 1e6);
        }
    }

    private static HttpResponse<String> send(WebhookServer s, String body) throws Exception {
        return client.send(HttpRequest.newBuilder(URI.create("https://localhost:" + s.port() + WebhookServer.VALIDATE_PATH))
                .timeout(API_SERVER_TIMEOUT).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
    }

    /** The rogue pod's review answered with its verdict. */
    private static void assertAnswered(HttpResponse<String> real) {
        assertThat(real.statusCode()).isEqualTo(200);
        AdmissionReview out = JSON.unmarshal(real.body(), AdmissionReview.class);
        assertThat(out.getResponse().getAllowed()).isFalse();
        assertThat(out.getResponse().getStatus().getMessage()).contains("NVIDIA_VISIBLE_DEVICES");
    }

    private Socket raw(WebhookServer s) throws IOException {
        Socket sock = new Socket(InetAddress.getLoopbackAddress(), s.port());
        held.add(sock);
        return sock;
    }

    private SSLSocket tls(WebhookServer s) throws IOException {
        SSLSocket sock = (SSLSocket) trusting.getSocketFactory().createSocket(raw(s), "localhost", s.port(), true);
        sock.startHandshake();
        return sock;
    }

    private static void write(Socket s, String text) throws IOException {
        OutputStream out = s.getOutputStream();
        out.write(text.getBytes(StandardCharsets.US_ASCII));
        out.flush();
    }

    private static String statusLine(Socket s) throws IOException {
        s.setSoTimeout((int) Duration.ofSeconds(30).toMillis());
        InputStream in = s.getInputStream();
        StringBuilder sb = new StringBuilder();
        for (int b; (b = in.read()) != -1 && b != '\r'; ) sb.append((char) b);
        return sb.toString();
    }

    /** The seed's sample with an annotation that makes its review about {@code bytes} long. */
    private static String padded(int bytes) {
        String seed = Reviews.json("seed-sample");
        String at = "\"metadata\": {\"generateName\": \"mps-sample-\",";
        assertThat(seed).contains(at);
        return seed.replace(at, "\"metadata\": {\"annotations\": {\"pad\": \"" + "x".repeat(bytes - seed.length()) + "\"}, \"generateName\": \"mps-sample-\",");
    }

    private void release() {
        for (Socket s : held) {
            try {
                s.close();
            } catch (IOException ignored) {
                // already closed by the server
            }
        }
        held.clear();
    }

    @Test
    void stalledAndOversizedClients_realReviewStillAnsweredWithinTheApiServersTimeout() throws Exception {
        try (WebhookServer s = server(admission(() -> OptionalLong.of(143_771)), WebhookServer.Limits.DEFAULT)) {
            assertAnswered(post(s, Reviews.json("rogue-nvidia-env")));                              // the baseline, before any abuse
            for (int i = 0; i < 64; i++) raw(s).getOutputStream().write(0x16);                   // a TLS record header, then nothing
            assertAnswered(post(s, Reviews.json("rogue-nvidia-env")));

            for (int i = 0; i < 16; i++) write(tls(s), "POST /validate HTTP/1.1\r\nHost: localhost\r\n");   // headers never ended
            for (int i = 0; i < 16; i++)
                write(tls(s), "POST /validate HTTP/1.1\r\nHost: localhost\r\nContent-Length: 100000\r\n\r\n{\"apiVersion\":");  // body never ended
            List<SSLSocket> oversized = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                SSLSocket o = tls(s);
                write(o, "POST /validate HTTP/1.1\r\nHost: localhost\r\nContent-Length: " + (8 << 20) + "\r\n\r\n");
                oversized.add(o);
            }
            // a body of unknown length (chunked) that runs past the cap: read up to the cap, then refused
            SSLSocket chunked = tls(s);
            int past = WebhookServer.Limits.DEFAULT.maxBody() + 1;
            write(chunked, "POST /validate HTTP/1.1\r\nHost: localhost\r\nTransfer-Encoding: chunked\r\n\r\n" + Integer.toHexString(past) + "\r\n");
            chunked.getOutputStream().write(new byte[past]);
            write(chunked, "\r\n");

            assertAnswered(post(s, Reviews.json("rogue-nvidia-env")));
            assertThat(post(s, Reviews.json("seed-sample")).statusCode()).as("a second one on a new exchange").isEqualTo(200);

            for (SSLSocket o : oversized) assertThat(statusLine(o)).as("refused by its Content-Length, unread").isEqualTo("HTTP/1.1 413 Request Entity Too Large");
            assertThat(statusLine(chunked)).isEqualTo("HTTP/1.1 413 Request Entity Too Large");
        } finally {
            release();
        }
    }

    @Test
    void exchangeDeadline_clientThatStopsMidHandshake_cutOff() throws Exception {
        var limits = new WebhookServer.Limits(3 << 20, 6 << 20, Duration.ofSeconds(4), Duration.ofSeconds(1));
        try (WebhookServer s = server(admission(() -> OptionalLong.of(143_771)), limits)) {
            Socket stalled = raw(s);
            stalled.getOutputStream().write(0x16);
            stalled.setSoTimeout((int) Duration.ofSeconds(30).toMillis());
            int read;
            try {
                read = stalled.getInputStream().read();
            } catch (SocketException reset) {
                read = -1;
            }
            assertThat(read).as("the server closed the connection").isEqualTo(-1);
            assertThat(post(s, Reviews.json("rogue-nvidia-env")).statusCode()).isEqualTo(200);
        } finally {
            release();
        }
    }

    @Test
    void parseBudget_largeReviewBeingJudged_smallOnePasses_secondLargeOneAnswered503() throws Exception {
        AtomicBoolean armed = new AtomicBoolean();
        CountDownLatch judging = new CountDownLatch(1), letGo = new CountDownLatch(1);
        // the largest-GPU lookup runs while a review holds its share of the budget: the first one after arming waits in it
        PodAdmission slow = admission(() -> {
            if (armed.getAndSet(false)) {
                judging.countDown();
                try {
                    letGo.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            return OptionalLong.of(143_771);
        });
        var limits = new WebhookServer.Limits(3 << 20, 3 << 20, Duration.ofSeconds(1), Duration.ofSeconds(30));
        try (WebhookServer s = server(slow, limits)) {
            armed.set(true);
            String large = padded(2 << 20);
            CompletableFuture<HttpResponse<String>> first = CompletableFuture.supplyAsync(() -> {
                try {
                    return client.send(HttpRequest.newBuilder(URI.create("https://localhost:" + s.port() + WebhookServer.VALIDATE_PATH))
                            .POST(HttpRequest.BodyPublishers.ofString(large)).build(), HttpResponse.BodyHandlers.ofString());
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            assertThat(judging.await(30, TimeUnit.SECONDS)).as("the first large review is being judged").isTrue();

            assertThat(post(s, Reviews.json("rogue-nvidia-env")).statusCode()).as("a small review fits beside it").isEqualTo(200);
            HttpResponse<String> second = post(s, large);
            assertThat(second.statusCode()).isEqualTo(503);
            assertThat(second.body()).contains("busy", "retry");

            letGo.countDown();
            assertThat(first.get(30, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
            assertThat(post(s, large).statusCode()).as("its bytes are free again").isEqualTo(200);
        }
    }
}
