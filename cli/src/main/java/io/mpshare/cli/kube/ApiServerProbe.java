package io.mpshare.cli.kube;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;

import java.net.ConnectException;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.UnknownHostException;
import java.net.http.HttpTimeoutException;
import java.nio.channels.UnresolvedAddressException;
import java.time.Duration;
import java.util.concurrent.TimeoutException;
import javax.net.ssl.SSLException;

/**
 * One {@code GET /version} before anything else starts, with a short timeout and no retries, so that a server that is
 * down, unresolvable, not trusted or refusing the credentials is one line at start, not a minute of informer stack
 * traces. {@code /version} is open to every authenticated (and, by default, anonymous) user, so a 401 means the
 * credentials themselves were refused; a 403 still proves the server is there.
 */
public final class ApiServerProbe {
    /** Connect and answer timeout of the probe: a cold JVM's first TLS request to a real apiserver took over 5 s on
     *  the loaded 2-core dev VM (CliKubeconfigIT); a refused or unresolvable server still fails at once. */
    public static final Duration TIMEOUT = Duration.ofSeconds(15);

    private ApiServerProbe() {}

    /** The outcome of the probe. */
    public sealed interface Result {
        record Reachable(String version) implements Result {}

        /** @param reason what failed, in words ("connection refused"); @param advice what to do, one or two sentences */
        record Unreachable(String reason, String advice) implements Result {}
    }

    public static Result probe(Config config, Duration timeout) {
        int ms = Math.toIntExact(timeout.toMillis());
        Config quick = new ConfigBuilder(config).withConnectionTimeout(ms).withRequestTimeout(ms)
                .withRequestRetryBackoffLimit(0).build();
        try (KubernetesClient client = new KubernetesClientBuilder().withConfig(quick).build()) {
            var v = client.getKubernetesVersion();
            return new Result.Reachable(v == null || v.getGitVersion() == null ? "unknown version" : v.getGitVersion());
        } catch (KubernetesClientException e) {
            if (e.getCode() == 403) return new Result.Reachable("version not readable (403)");
            return classify(e, URI.create(config.getMasterUrl()), timeout);
        } catch (RuntimeException e) {
            return classify(e, URI.create(config.getMasterUrl()), timeout);
        }
    }

    /** What went wrong, from the exception chain the client threw; pure, so every case is tested. */
    static Result.Unreachable classify(Throwable failure, URI server, Duration timeout) {
        String fix = "Check the cluster's server: in the kubeconfig, or choose another with --kubeconfig / --context";
        if (has(failure, UnresolvedAddressException.class) || has(failure, UnknownHostException.class))
            return new Result.Unreachable("the host " + server.getHost() + " does not resolve", fix);
        if (has(failure, SSLException.class))
            return new Result.Unreachable("TLS failed (" + deepest(failure, SSLException.class) + ")",
                    "Check certificate-authority(-data) of the cluster in the kubeconfig, and that the URL is the API server's");
        if (has(failure, HttpTimeoutException.class) || has(failure, SocketTimeoutException.class) || has(failure, TimeoutException.class))
            return new Result.Unreachable("no answer within " + timeout.toSeconds() + " s", "Is the API server up and this address reachable (firewall, VPN)? " + fix);
        if (has(failure, ConnectException.class))
            return new Result.Unreachable("connection refused: nothing listens on " + server.getHost() + ":" + port(server),
                    "Is the API server running? " + fix);
        if (failure instanceof KubernetesClientException k && k.getCode() == 401)
            return new Result.Unreachable("the credentials were refused (401 Unauthorized)",
                    "Renew the token or client certificate of the kubeconfig's user, or choose another context with --context");
        if (failure instanceof KubernetesClientException k && k.getCode() > 0)
            return new Result.Unreachable("GET /version answered HTTP " + k.getCode(), "Is " + server + " a Kubernetes API server? " + fix);
        Throwable root = failure;
        while (root.getCause() != null) root = root.getCause();
        return new Result.Unreachable(root.getClass().getSimpleName() + (root.getMessage() == null ? "" : ": " + root.getMessage()), fix);
    }

    private static int port(URI server) {
        if (server.getPort() > 0) return server.getPort();
        return "http".equals(server.getScheme()) ? 80 : 443;
    }

    private static boolean has(Throwable t, Class<? extends Throwable> type) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (type.isInstance(c)) return true;
            for (Throwable s : c.getSuppressed()) if (type.isInstance(s)) return true;
        }
        return false;
    }

    private static String deepest(Throwable t, Class<? extends Throwable> type) {
        String message = type.getSimpleName();
        for (Throwable c = t; c != null; c = c.getCause())
            if (type.isInstance(c) && c.getMessage() != null) message = c.getMessage();
        return message;
    }
}
