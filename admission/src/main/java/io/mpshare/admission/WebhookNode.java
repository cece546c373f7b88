package io.mpshare.admission;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
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
import io.mpshare.admission.tls.SwappableSslContext;
import io.mpshare.core.MemoryUnit;
import io.mpshare.core.Names;
import io.mpshare.core.validation.AdmissionRules;
import io.mpshare.core.validation.PodValidator;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.time.InstantSource;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * {@code mpshare webhook} wired by hand: the serving certificate (mounted PEM files, or a self-signed one kept in a
 * Secret that every replica shares), the informers the rules read (the largest GPU from the nodes' inventories, the
 * namespaces' client UIDs), {@link PodAdmission} over core's {@link PodValidator}, the {@link WebhookServer}, and the
 * reconcile loop that keeps the webhook configurations' caBundle in place and picks up a rotated mounted certificate.
 *
 * <p>Implementation notes. {@link #start} reads local files first, so a missing mounted certificate is one line before
 * any API call; it asks for the API server only when something needs it ({@link Config#needsApi}). The reconcile loop
 * runs on its own thread every {@link Config#reconcileEvery}; a failed round is logged and retried at the next one
 * (helm upgrade may reset the caBundle; kubelet swaps the mounted files on a Secret update). The server is given a
 * {@link SwappableSslContext}, so a rotated certificate reaches new connections without a restart. {@link #close} stops serving
 * (the server owns its request threads: {@link WebhookServer}) and the loop, then closes the client (and with it the informers).
 */
public final class WebhookNode implements AutoCloseable {
    private static final Logger LOG = Logger.getLogger(WebhookNode.class.getName());

    /**
     * A mounted certificate: PEM chain and key (a Secret's {@code tls.crt}, {@code tls.key}).
     *
     * @param ca the CA to publish in the caBundle, or null for the chain's last certificate
     */
    public record MountedFiles(Path cert, Path key, Path ca) {
        public MountedFiles {
            Objects.requireNonNull(cert);
            Objects.requireNonNull(key);
        }
    }

    /**
     * What {@code mpshare webhook}'s flags say.
     *
     * @param mounted            PEM files to serve; empty: a self-signed certificate kept in the Secret {@code tlsSecret}
     * @param service            the webhook's Service, for the certificate's DNS names and the configurations' client config
     * @param namespace          the webhook's own namespace (its non-GPU pods may always set NVIDIA_VISIBLE_DEVICES)
     * @param mutating           MutatingWebhookConfigurations whose caBundle to keep set
     * @param validating         ValidatingWebhookConfigurations whose caBundle to keep set
     * @param allowedNamespaces  other namespaces whose non-GPU pods may set NVIDIA_VISIBLE_DEVICES
     * @param schedulerName      set on shared-GPU pods; empty leaves it alone
     * @param largestGpuMib      the largest GPU; 0 watches the nodes' inventories instead
     * @param acceptedSchedulers schedulerNames whose scheduler calls the extender; empty: not checked
     * @param securityDefaults   runAsUser/runAsGroup set on strict namespaces' shared-GPU pods that set none
     * @param clientUids         watch the namespaces' client-UID bindings
     * @param kubeletRootDirs    the kubelet's root folder(s) on the nodes, which no judged pod may mount
     * @param reconcileEvery     how often the caBundle and the mounted certificate are checked
     */
    public record Config(int port, Optional<MountedFiles> mounted, String tlsSecret, String service, String namespace,
                         List<String> mutating, List<String> validating, Set<String> allowedNamespaces, String schedulerName,
                         long largestGpuMib, MemoryUnit unit, long reserveMib, Set<String> acceptedSchedulers,
                         Optional<SecurityDefaults> securityDefaults, boolean clientUids, List<String> kubeletRootDirs, Duration reconcileEvery) {
        public Config {
            mutating = List.copyOf(mutating);
            validating = List.copyOf(validating);
            allowedNamespaces = Set.copyOf(allowedNamespaces);
            acceptedSchedulers = Set.copyOf(acceptedSchedulers);
            kubeletRootDirs = AdmissionRules.kubeletRootDirs(kubeletRootDirs);
            if (!reconcileEvery.isPositive()) throw new IllegalArgumentException("--reconcile-seconds must be at least 1, not " + reconcileEvery.toSeconds());
        }

        /** The API server is needed for a self-signed certificate, watching nodes or namespaces, or a caBundle to patch. */
        public boolean needsApi() {
            return mounted.isEmpty() || largestGpuMib <= 0 || clientUids || !mutating.isEmpty() || !validating.isEmpty();
        }
    }

    private final WebhookServer server;
    private final ScheduledExecutorService reconcile;
    private final KubernetesClient client;

    private WebhookNode(WebhookServer server, ScheduledExecutorService reconcile, KubernetesClient client) {
        this.server = server;
        this.reconcile = reconcile;
        this.client = client;
    }

    /**
     * Starts serving. {@code connect} is called once, and only when {@link Config#needsApi}; the node owns the client
     * and closes it. Expected failures: a mounted file that cannot be read ({@link UncheckedIOException}), the
     * port ({@link IOException}), the API server (the client's exception), each with a message that says what to change.
     */
    public static WebhookNode start(Config c, Supplier<KubernetesClient> connect, InstantSource clock) throws IOException {
        MountedCertificate mounted = c.mounted().map(f -> new MountedCertificate(f.cert(), f.key(), f.ca())).orElse(null);
        ServingCertificate mountedCert = mounted == null ? null : mounted.load();
        KubernetesClient client = c.needsApi() ? connect.get() : null;
        ScheduledExecutorService reconcile = Executors.newSingleThreadScheduledExecutor(Thread.ofPlatform().daemon().name("webhook-reconcile").factory());
        try {
            ServingCertificate cert = mountedCert != null ? mountedCert
                    : new SecretCertificateStore(client, c.namespace(), c.tlsSecret(), SelfSigned.serviceDnsNames(c.service(), c.namespace()), clock,
                    Duration.ofDays(3650), Duration.ofDays(30)).obtain();
            KubernetesSerialization json = client != null ? client.getKubernetesSerialization() : new KubernetesSerialization();
            Set<String> allowed = new HashSet<>(c.allowedNamespaces());
            allowed.add(c.namespace());
            var rules = new AdmissionRules(allowed, c.unit(), c.reserveMib(), c.acceptedSchedulers(), c.kubeletRootDirs());
            var admission = new PodAdmission(new PodValidator(rules), largestGpu(c, client), c.schedulerName(), json, c.securityDefaults(), clientUids(c, client));
            var patcher = client == null ? null : new CaBundlePatcher(client, c.mutating(), c.validating(), c.service(), c.namespace());
            if (patcher != null) patcher.patch(cert.caPem());
            SwappableSslContext tls = SwappableSslContext.of(cert.sslContext());
            WebhookServer server = new WebhookServer(new InetSocketAddress(c.port()), tls, admission, json);
            LOG.info("mpshare webhook serving on :" + server.port() + " (namespace " + c.namespace() + ", scheduler "
                    + (c.schedulerName().isEmpty() ? "unchanged" : c.schedulerName()) + ")");
            var current = new AtomicReference<>(cert);
            long every = c.reconcileEvery().toSeconds();
            reconcile.scheduleWithFixedDelay(() -> reconcile(tls, mounted, patcher, current), every, every, TimeUnit.SECONDS);
            return new WebhookNode(server, reconcile, client);
        } catch (IOException | RuntimeException e) {
            reconcile.shutdownNow();
            if (client != null) client.close();
            throw e;
        }
    }

    private static Supplier<OptionalLong> largestGpu(Config c, KubernetesClient client) {
        if (c.largestGpuMib() > 0) return LargestGpu.fixed(c.largestGpuMib());
        LargestGpu watcher = new LargestGpu();
        client.nodes().withLabel(Names.NODE_LABEL_SCHEDULE, Names.NODE_LABEL_SCHEDULE_MPS).inform(watcher, 0);
        return watcher;
    }

    private static Optional<ClientUidLookup> clientUids(Config c, KubernetesClient client) {
        if (!c.clientUids()) return Optional.empty();
        NamespaceClientUids watcher = new NamespaceClientUids();
        // inform returns once the first list is in; its handler events may still be queued, so apply the list here too
        client.namespaces().inform(watcher, 0).getStore().list().forEach(watcher::onAdd);
        return Optional.of(watcher);
    }

    /** Keeps the caBundle in place (helm upgrade may reset it) and picks up a rotated mounted certificate. */
    private static void reconcile(SwappableSslContext tls, MountedCertificate mounted, CaBundlePatcher patcher, AtomicReference<ServingCertificate> current) {
        try {
            ServingCertificate cert = current.get();
            if (mounted != null && mounted.changed()) {
                cert = mounted.load();
                tls.swap(cert.sslContext());
                current.set(cert);
                LOG.info("reloaded the rotated TLS certificate");
            }
            if (patcher != null) patcher.patch(cert.caPem());
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "webhook reconcile failed; will retry", e);
        }
    }

    /** The HTTPS port served (the one asked for, or the free one picked for port 0). */
    public int port() { return server.port(); }

    @Override public void close() {
        try {
            server.close();
        } finally {
            reconcile.shutdownNow();
            if (client != null) client.close();
        }
    }
}
