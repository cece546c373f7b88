package io.mpshare.cli;

import io.mpshare.admission.WebhookNode;
import io.mpshare.admission.review.SecurityDefaults;
import io.mpshare.cli.kube.KubeConnector;
import io.mpshare.cli.kube.KubeOptions;
import io.mpshare.core.MemoryUnit;
import io.mpshare.core.Names;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Callable;

/**
 * {@code mpshare webhook}: the admission webhook (AdmissionReview v1 over HTTPS). Flags become a {@link WebhookNode.Config};
 * the admission module's {@link WebhookNode} wires and runs it until SIGTERM.
 */
@Command(name = "webhook", mixinStandardHelpOptions = true,
        description = "Admission webhook: validates pods that ask for shared GPUs and optionally sets their schedulerName.")
public final class WebhookCommand implements Callable<Integer> {
    private static final Path SA_NAMESPACE = Path.of("/var/run/secrets/kubernetes.io/serviceaccount/namespace");

    @Option(names = "--port", defaultValue = "9443", description = "HTTPS port (default ${DEFAULT-VALUE})") int port;
    @Option(names = "--tls-cert-file", description = "PEM certificate chain from a mounted Secret; without it a self-signed one is made") Path certFile;
    @Option(names = "--tls-key-file", description = "PEM private key matching --tls-cert-file") Path keyFile;
    @Option(names = "--tls-ca-file", description = "PEM CA to patch into the webhook configurations (default: last certificate of the chain)") Path caFile;
    @Option(names = "--tls-secret", defaultValue = "mpshare-webhook-tls", description = "Secret that keeps the self-signed certificate (default ${DEFAULT-VALUE})") String tlsSecret;
    @Option(names = "--service", defaultValue = "mpshare-webhook", description = "the webhook's Service name, for the certificate's DNS names (default ${DEFAULT-VALUE})") String service;
    @Option(names = "--namespace", description = "the webhook's namespace (default: $POD_NAMESPACE, then the service account's)") String namespace;
    @Option(names = "--mutating-webhook-configuration", description = "MutatingWebhookConfiguration whose caBundle to set (repeatable)") List<String> mutating = new ArrayList<>();
    @Option(names = "--validating-webhook-configuration", description = "ValidatingWebhookConfiguration whose caBundle to set (repeatable)") List<String> validating = new ArrayList<>();
    @Option(names = "--allowed-namespace", description = "namespace whose non-GPU pods may set NVIDIA_VISIBLE_DEVICES (repeatable; the webhook's own is always allowed)") List<String> allowed = new ArrayList<>();
    @Option(names = "--scheduler-name", defaultValue = "", description = "set this schedulerName on shared-GPU pods; empty leaves it alone") String schedulerName;
    @Option(names = "--largest-gpu-mib", defaultValue = "0", description = "largest GPU in MiB; 0 watches the nodes' " + Names.ANN_NODE_GPUS + " instead") long largestGpuMib;
    @Option(names = "--gpu-mem-unit", defaultValue = "GiB", description = "unit of " + Names.RESOURCE_GPU_MEM + ": GiB or MiB (default ${DEFAULT-VALUE})") String unit;
    @Option(names = "--context-reserve-mib", defaultValue = "" + Names.DEFAULT_CONTEXT_RESERVE_MIB, description = "CUDA context reserve per container per GPU (default ${DEFAULT-VALUE})") long reserveMib;
    @Option(names = "--accepted-scheduler", description = "schedulerName whose scheduler calls mpshare's extender (repeatable); shared-GPU pods for any other are refused. None given: not checked") List<String> acceptedSchedulers = new ArrayList<>();
    @Option(names = "--default-run-as-user", defaultValue = "0", description = "in strict namespaces, set this runAsUser (and runAsNonRoot, allowPrivilegeEscalation: false) on shared-GPU pods that set none; 0 leaves them to be refused") long defaultRunAsUser;
    @Option(names = "--default-run-as-group", defaultValue = "-1", description = "runAsGroup set with --default-run-as-user (default: the same number)") long defaultRunAsGroup;
    @Option(names = "--client-uids", negatable = true, defaultValue = "true", fallbackValue = "true", arity = "0..1",
            description = "watch namespaces' " + Names.ANN_CLIENT_UID + " (a UID belongs to one namespace; strict namespaces only); --no-client-uids leaves UIDs to the pods") boolean clientUids;
    @Option(names = "--threads", defaultValue = "8", description = "ignored: each request runs on a virtual thread of its own (kept for existing command lines)") int threads;
    @Option(names = "--kubelet-root-dir", defaultValue = Names.KUBELET_DIR, description = "the kubelet's --root-dir on the nodes (repeatable):"
            + " no judged pod may mount it as a host path (default ${DEFAULT-VALUE})") List<String> kubeletRootDirs = new ArrayList<>();
    @Mixin KubeOptions kube;
    @Option(names = "--reconcile-seconds", defaultValue = "60", description = "how often the caBundle and mounted certificate are checked (default ${DEFAULT-VALUE})") int reconcileSeconds;

    @Override public Integer call() throws Exception {
        if ((certFile == null) != (keyFile == null)) throw CliFailure.usage("give both --tls-cert-file and --tls-key-file, or neither");
        var config = new WebhookNode.Config(port,
                certFile == null ? Optional.empty() : Optional.of(new WebhookNode.MountedFiles(certFile, keyFile, caFile)),
                tlsSecret, service, namespace(), mutating, validating, Set.copyOf(allowed), schedulerName, largestGpuMib,
                MemoryUnit.parse(unit), reserveMib, Set.copyOf(acceptedSchedulers),
                defaultRunAsUser <= 0 ? Optional.empty()
                        : Optional.of(new SecurityDefaults(defaultRunAsUser, defaultRunAsGroup < 0 ? defaultRunAsUser : defaultRunAsGroup)),
                clientUids, kubeletRootDirs, Duration.ofSeconds(reconcileSeconds));
        Foreground.serve(WebhookNode.start(config, () -> KubeConnector.system().connect(kube), InstantSource.system()));
        return ExitCodes.OK;
    }

    private String namespace() throws IOException {
        if (namespace != null && !namespace.isBlank()) return namespace;
        String env = System.getenv("POD_NAMESPACE");
        if (env != null && !env.isBlank()) return env;
        if (Files.exists(SA_NAMESPACE)) return Files.readString(SA_NAMESPACE).trim();
        return "mpshare-system";
    }
}
