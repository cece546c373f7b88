package io.mpshare.cli.kube;

import io.fabric8.kubernetes.api.model.NamedContext;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.mpshare.cli.CliFailure;

import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * The one place mpshare builds a fabric8 {@link Config} and client: resolves the source ({@link KubeconfigResolver}),
 * reads it, checks that the context asked for exists, and probes the server once ({@link ApiServerProbe}) before any
 * informer starts. Every failure is a {@link CliFailure} of one line that names the file, the context and the URL.
 */
public final class KubeConnector {
    private final KubeEnvironment env;
    private final Duration probeTimeout;

    public KubeConnector(KubeEnvironment env, Duration probeTimeout) {
        this.env = Objects.requireNonNull(env);
        this.probeTimeout = Objects.requireNonNull(probeTimeout);
    }

    public static KubeConnector system() { return new KubeConnector(KubeEnvironment.system(), ApiServerProbe.TIMEOUT); }

    /** The resolved configuration: what was read, from where, and which context. */
    public record Target(Config config, KubeconfigSource source, String context) {
        /** {@code https://host:port (from FILE, context C)} for messages. */
        public String describe() {
            String url = config.getMasterUrl().replaceAll("/+$", "");
            return url + " (from " + source.describe() + (context == null ? "" : ", context " + context) + ")";
        }
    }

    /** Resolves and reads the configuration; does not contact the server. */
    public Target target(KubeOptions options) {
        KubeconfigSource source = switch (KubeconfigResolver.resolve(options.kubeconfig(), env)) {
            case KubeconfigResolver.Resolution.Found f -> f.source();
            case KubeconfigResolver.Resolution.Missing m -> throw CliFailure.failed(m.reason());
        };
        String wanted = options.context();
        if (source instanceof KubeconfigSource.InCluster && wanted != null)
            throw CliFailure.usage("--context " + wanted + ": there is no kubeconfig here (a pod uses its service account); pass --kubeconfig FILE too");
        Config config;
        try {
            config = switch (source) {
                case KubeconfigSource.Flag f -> Config.fromKubeconfig(wanted, f.file().toFile());
                case KubeconfigSource.Home h -> Config.fromKubeconfig(wanted, h.file().toFile());
                case KubeconfigSource.Variable v when v.files().size() == 1 -> Config.fromKubeconfig(wanted, v.files().getFirst().toFile());
                case KubeconfigSource.Variable v -> Config.autoConfigure(wanted); // fabric8 merges the list as kubectl does
                case KubeconfigSource.InCluster i -> Config.autoConfigure(null);
            };
        } catch (RuntimeException e) {
            throw CliFailure.failed(source.describe() + " cannot be read as a kubeconfig: " + e.getMessage());
        }
        if (source instanceof KubeconfigSource.InCluster) return new Target(config, source, null);
        List<String> names = config.getContexts() == null ? List.of()
                : config.getContexts().stream().map(NamedContext::getName).toList();
        if (names.isEmpty())
            throw CliFailure.failed(source.describe() + " defines no context: it is not a usable kubeconfig");
        if (wanted != null && !names.contains(wanted))
            throw CliFailure.usage("--context " + wanted + ": no such context in " + source.describe()
                    + " (it has: " + String.join(", ", names) + ")");
        String current = wanted != null ? wanted : config.getCurrentContext() == null ? null : config.getCurrentContext().getName();
        if (current == null)
            throw CliFailure.usage(source.describe() + " sets no current-context: pass --context NAME (it has: " + String.join(", ", names) + ")");
        return new Target(config, source, current);
    }

    /** The client for {@code options}, once the server answered the probe. The caller closes it. */
    public KubernetesClient connect(KubeOptions options) {
        Target target = target(options);
        if (ApiServerProbe.probe(target.config(), probeTimeout) instanceof ApiServerProbe.Result.Unreachable u)
            throw CliFailure.failed("cannot reach the API server " + target.describe() + ": " + u.reason() + ". " + u.advice());
        return new KubernetesClientBuilder().withConfig(target.config()).build();
    }
}
