package io.mpshare.cli;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.mpshare.cli.kube.KubeConnector;
import io.mpshare.cli.kube.KubeOptions;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.mpshare.admission.WebhookServer;
import io.mpshare.admission.cluster.ClientUidLookup;
import io.mpshare.admission.cluster.LargestGpu;
import io.mpshare.admission.cluster.NamespaceClientUids;
import io.mpshare.admission.review.PodAdmission;
import io.mpshare.admission.review.SecurityDefaults;
import io.mpshare.admission.tls.CaBundlePatcher;
import io.mpshare.admission.tls.MountedCertificate;
import io.mpshare.admission.tls.SecretCertificateStore;
import io.mpshare.admission.tls.SelfSigned;
import io.mpshare.admission.tls.ServingCertificate;
import io.mpshare.core.MemoryUnit;
import io.mpshare.core.Names;
import io.mpshare.core.validation.AdmissionRules;
import io.mpshare.core.validation.PodValidator;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import java.util.logging.Level;
import java.util.logging.Logger;

/** {@code mpshare webhook}: the admission webhook (AdmissionReview v1 over HTTPS). Wires the admission module by hand. */
@Command(name = "webhook", mixinStandardHelpOptions = true,
        description = "Admission webhook: validates pods that ask for shared GPUs and optionally sets their schedulerName.")
public final class WebhookCommand implements Callable<Integer> {
    private static final Logger LOG = Logger.getLogger(WebhookCommand.class.getName());
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
        String ns = namespace();
        Set<String> allowedNs = new HashSet<>(allowed);
        allowedNs.add(ns);
        MemoryUnit memUnit = MemoryUnit.parse(unit);
        var rules = new AdmissionRules(allowedNs, memUnit, reserveMib, Set.copyOf(acceptedSchedulers), kubeletRootDirs);
        boolean needsApi = certFile == null || largestGpuMib <= 0 || clientUids || !mutating.isEmpty() || !validating.isEmpty();
        // local files first: a missing mounted certificate is one line before any API call (CliErrorsIT)
        MountedCertificate mounted = certFile == null ? null : new MountedCertificate(certFile, keyFile, caFile);
        ServingCertificate mountedCert = mounted == null ? null : mounted.load();
        try (KubernetesClient client = needsApi ? KubeConnector.system().connect(kube) : null;
             var scheduler = Executors.newSingleThreadScheduledExecutor(Thread.ofPlatform().daemon().name("webhook-reconcile").factory())) {
            Supplier<OptionalLong> largest;
            if (largestGpuMib > 0) largest = LargestGpu.fixed(largestGpuMib);
            else {
                LargestGpu watcher = new LargestGpu();
                client.nodes().withLabel(Names.NODE_LABEL_SCHEDULE, Names.NODE_LABEL_SCHEDULE_MPS).inform(watcher, 0);
                largest = watcher;
            }
            Optional<ClientUidLookup> uids = Optional.empty();
            if (clientUids) {
                NamespaceClientUids watcher = new NamespaceClientUids();
                // inform returns once the first list is in; its handler events may still be queued, so apply the list here too
                client.namespaces().inform(watcher, 0).getStore().list().forEach(watcher::onAdd);
                uids = Optional.of(watcher);
            }
            ServingCertificate cert = mountedCert != null ? mountedCert
                    : new SecretCertificateStore(client, ns, tlsSecret, SelfSigned.serviceDnsNames(service, ns), InstantSource.system(),
                    Duration.ofDays(3650), Duration.ofDays(30)).obtain();
            KubernetesSerialization json = client != null ? client.getKubernetesSerialization() : new KubernetesSerialization();
            var defaults = defaultRunAsUser <= 0 ? Optional.<SecurityDefaults>empty()
                    : Optional.of(new SecurityDefaults(defaultRunAsUser, defaultRunAsGroup < 0 ? defaultRunAsUser : defaultRunAsGroup));
            var admission = new PodAdmission(new PodValidator(rules), largest, schedulerName, json, defaults, uids);
            var patcher = client == null ? null : new CaBundlePatcher(client, mutating, validating, service, ns);
            if (patcher != null) patcher.patch(cert.caPem());
            WebhookServer server = new WebhookServer(new InetSocketAddress(port), cert.sslContext(), admission, json);
            LOG.info("mpshare webhook serving on :" + server.port() + " (namespace " + ns + ", scheduler " + (schedulerName.isEmpty() ? "unchanged" : schedulerName) + ")");
            var current = new AtomicReference<>(cert);
            scheduler.scheduleWithFixedDelay(() -> reconcile(server, mounted, patcher, current), reconcileSeconds, reconcileSeconds, TimeUnit.SECONDS);
            CountDownLatch stop = new CountDownLatch(1);
            Runtime.getRuntime().addShutdownHook(new Thread(() -> { server.close(); stop.countDown(); }));
            stop.await();
        }
        return 0;
    }

    /** Keeps the caBundle in place (helm upgrade may reset it) and picks up a rotated mounted certificate. */
    private static void reconcile(WebhookServer server, MountedCertificate mounted, CaBundlePatcher patcher, AtomicReference<ServingCertificate> current) {
        try {
            ServingCertificate cert = current.get();
            if (mounted != null && mounted.changed()) {
                cert = mounted.load();
                server.reloadTls(cert.sslContext());
                current.set(cert);
                LOG.info("reloaded the rotated TLS certificate");
            }
            if (patcher != null) patcher.patch(cert.caPem());
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "webhook reconcile failed; will retry", e);
        }
    }

    private String namespace() throws java.io.IOException {
        if (namespace != null && !namespace.isBlank()) return namespace;
        String env = System.getenv("POD_NAMESPACE");
        if (env != null && !env.isBlank()) return env;
        if (Files.exists(SA_NAMESPACE)) return Files.readString(SA_NAMESPACE).trim();
        return "mpshare-system";
    }
}
