package io.mpshare.deviceplugin;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The device plugin's probe and metrics port under slow clients, over real sockets: kubelet's probe must keep its answer
 * within the probe's 1 s timeout whatever other connections hold (a JDK server with two platform workers stopped
 * answering at two stalled clients, and kubelet restarted the agent).
 */
class NodeHttpIT {
    /** kubelet's default probe timeout ({@code timeoutSeconds: 1}). */
    static final Duration PROBE_TIMEOUT = Duration.ofSeconds(1);
    final List<Socket> stalled = new ArrayList<>();

    @AfterEach void closeStalled() throws IOException {
        for (Socket s : stalled) s.close();
    }

    /** A client that sends the start of a request and then nothing: it holds its exchange until the deadline. */
    Socket stall(int port, String partial) throws IOException {
        Socket s = new Socket("127.0.0.1", port);
        s.getOutputStream().write(partial.getBytes(StandardCharsets.US_ASCII));
        s.getOutputStream().flush();
        stalled.add(s);
        return s;
    }

    /** kubelet's probe: GET /healthz, the status line read within {@code timeout}. */
    static String probe(int port, Duration timeout) throws IOException {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", port), (int) timeout.toMillis());
            s.setSoTimeout((int) timeout.toMillis());
            s.getOutputStream().write("GET /healthz HTTP/1.1\r\nHost: 10.0.0.7:39996\r\nUser-Agent: kube-probe/1.31\r\nConnection: close\r\n\r\n"
                    .getBytes(StandardCharsets.US_ASCII));
            return statusLine(s.getInputStream());
        }
    }

    static String statusLine(InputStream in) throws IOException {
        StringBuilder sb = new StringBuilder();
        for (int c; (c = in.read()) >= 0 && c != '\r'; ) sb.append((char) c);
        return sb.toString();
    }

    @Test
    void healthz_answersWithinTheProbeTimeout_while64ClientsStallMidRequest() throws Exception {
        try (var http = new NodeHttp(new InetSocketAddress("127.0.0.1", 0), () -> null).start()) {
            for (int i = 0; i < 32; i++) stall(http.port(), "GET /metrics HTTP/1.1\r\nHost: x\r\n");    // the review's probe C
            for (int i = 0; i < 32; i++) stall(http.port(), "GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: "); // mid-header
            for (int i = 0; i < 5; i++) assertThat(probe(http.port(), PROBE_TIMEOUT)).isEqualTo("HTTP/1.1 200 OK");
        }
    }

    @Test
    void stalledClient_isCutOffAtTheExchangeDeadline() throws Exception {
        try (var http = new NodeHttp(new InetSocketAddress("127.0.0.1", 0), () -> null, Duration.ofSeconds(1)).start()) {
            Socket s = stall(http.port(), "GET /metrics HTTP/1.1\r\nHost: x\r\n");
            s.setSoTimeout(15_000);
            int first;
            try {
                first = s.getInputStream().read();
            } catch (SocketTimeoutException e) {
                throw new AssertionError("the server still held the stalled connection 15 s after its 1 s deadline", e);
            } catch (IOException e) {
                first = -1; // reset: closed by the server
            }
            assertThat(first).as("closed without an answer").isEqualTo(-1);
            assertThat(probe(http.port(), PROBE_TIMEOUT)).isEqualTo("HTTP/1.1 200 OK");
        }
    }
}
