package io.mpshare.cli.kube;

import io.fabric8.kubernetes.client.KubernetesClientException;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import javax.net.ssl.SSLHandshakeException;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpConnectTimeoutException;
import java.nio.channels.UnresolvedAddressException;
import java.time.Duration;
import java.util.concurrent.CompletionException;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

class ApiServerProbeTest {
    private static final URI SERVER = URI.create("https://api.example.test:6443");

    /** What fabric8 throws, as seen from its JDK HTTP client: a KubernetesClientException around the cause. */
    private static KubernetesClientException wrapped(Throwable cause) {
        return new KubernetesClientException("An error has occurred.", new CompletionException(cause));
    }

    private static ConnectException connect(Throwable cause) {
        ConnectException e = new ConnectException();
        e.initCause(cause);
        return e;
    }

    static Stream<Arguments> failures() {
        return Stream.of(
                Arguments.of("unresolvable", wrapped(connect(new UnresolvedAddressException())), "the host api.example.test does not resolve", "server:"),
                Arguments.of("refused", wrapped(new ConnectException("Connection refused")), "connection refused: nothing listens on api.example.test:6443", "Is the API server running?"),
                Arguments.of("tls", wrapped(new SSLHandshakeException("PKIX path building failed")), "TLS failed (PKIX path building failed)", "certificate-authority"),
                Arguments.of("timeout", wrapped(new HttpConnectTimeoutException("HTTP connect timed out")), "no answer within 5 s", "firewall"),
                Arguments.of("unauthorized", new KubernetesClientException("Unauthorized", 401, null), "credentials were refused (401 Unauthorized)", "--context"),
                Arguments.of("not kube", new KubernetesClientException("Not Found", 404, null), "answered HTTP 404", "Kubernetes API server?"),
                Arguments.of("other", wrapped(new IllegalStateException("boom")), "IllegalStateException: boom", "--kubeconfig"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("failures")
    void classify_failure_reasonAndAdvice(String name, Throwable failure, String reason, String advice) {
        ApiServerProbe.Result.Unreachable u = ApiServerProbe.classify(failure, SERVER, Duration.ofSeconds(5));
        assertThat(u.reason()).contains(reason);
        assertThat(u.advice()).contains(advice);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("failures")
    void classify_failure_oneLine(String name, Throwable failure, String reason, String advice) {
        ApiServerProbe.Result.Unreachable u = ApiServerProbe.classify(failure, SERVER, Duration.ofSeconds(5));
        assertThat(u.reason() + u.advice()).doesNotContain("\n");
    }
}
