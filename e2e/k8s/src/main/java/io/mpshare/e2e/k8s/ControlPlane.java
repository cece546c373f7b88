package io.mpshare.e2e.k8s;

import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.authentication.TokenRequestBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;

/**
 * A real control plane on loopback: etcd, kube-apiserver ({@code --authorization-mode=Node,RBAC}) and
 * kube-controller-manager (the controllers a kubelet-less cluster can run), each a child process with its log in
 * {@link #logDir()}. Add kube-schedulers, extenders and webhooks with {@link Components}; fake GPU nodes with
 * {@link GpuNodes}; the chart's RBAC and scheduler configuration with {@link ChartDeployment}.
 *
 * <p>Implementation notes: ports are taken free from the kernel just before each start; every process is stopped by
 * {@link #close()} and, should the JVM exit first, by a shutdown hook. Certificates are made fresh per instance
 * ({@link Pki}); each identity gets its own kubeconfig file under {@code runDir/kubeconfig/}.
 */
public final class ControlPlane implements AutoCloseable {
    public static final Duration START_TIMEOUT = Duration.ofSeconds(120);
    static final String CONTROLLERS = "*,-nodelifecycle,-nodeipam,-route,-cloud-node-lifecycle,-service";

    /**
     * How the servers run: {@code serverCpus} pins every process this control plane starts (etcd, kube-apiserver,
     * kube-controller-manager, and what {@link Components} starts through {@link #spawn}) with {@code taskset -c}
     * ("" leaves them unpinned); {@code etcdArgs} and {@code apiserverArgs} are added to those commands (a later flag
     * wins in both), as a scale test raises etcd's quota or kube-apiserver's in-flight limits.
     */
    public record Tuning(String serverCpus, List<String> etcdArgs, List<String> apiserverArgs) {
        public static final Tuning DEFAULT = new Tuning("", List.of(), List.of());

        public Tuning {
            if (serverCpus == null || !serverCpus.matches("[0-9,\\-]*"))
                throw new IllegalArgumentException("server CPUs must be a CPU list as taskset -c takes it (e.g. 1 or 0-3,8), got '" + serverCpus + "'");
            etcdArgs = List.copyOf(etcdArgs);
            apiserverArgs = List.copyOf(apiserverArgs);
        }
    }

    private final Binaries bin;
    private final Tuning tuning;
    private final Path runDir;
    private final Path logDir;
    private final Pki pki;
    private final List<ManagedProcess> processes = Collections.synchronizedList(new ArrayList<>());
    private final Thread hook = new Thread(this::stopAll, "control-plane-stop");
    private int apiPort;
    private ManagedProcess etcd, apiserver, controllerManager;
    private KubernetesClient admin;

    private ControlPlane(Binaries bin, Path runDir, Path logDir, int apiPort, Tuning tuning) {
        this.bin = bin;
        this.tuning = tuning;
        this.apiPort = apiPort;
        this.runDir = runDir;
        this.logDir = logDir;
        this.pki = Pki.create(runDir.resolve("pki"));
    }

    /** Starts etcd, kube-apiserver and kube-controller-manager and waits until the API answers /readyz and namespace default has its service account. */
    public static ControlPlane start(Binaries bin, Path runDir, Path logDir) {
        return start(bin, runDir, logDir, 0);
    }

    /** As {@link #start(Binaries, Path, Path)}, with kube-apiserver on {@code apiPort} (0: a free one). */
    public static ControlPlane start(Binaries bin, Path runDir, Path logDir, int apiPort) {
        return start(bin, runDir, logDir, apiPort, Tuning.DEFAULT);
    }

    /** As {@link #start(Binaries, Path, Path, int)}, the servers run as {@code tuning} says. */
    public static ControlPlane start(Binaries bin, Path runDir, Path logDir, int apiPort, Tuning tuning) {
        var cp = new ControlPlane(bin, runDir, logDir, apiPort, tuning);
        Runtime.getRuntime().addShutdownHook(cp.hook);
        try {
            cp.startEtcd();
            cp.startApiserver();
            cp.startControllerManager();
            cp.waitFor("service account default/default (kube-controller-manager up)", cp.controllerManager,
                    () -> cp.admin.serviceAccounts().inNamespace("default").withName("default").get() != null);
            return cp;
        } catch (RuntimeException e) {
            cp.close();
            throw e;
        }
    }

    public Binaries binaries() { return bin; }
    public Tuning tuning() { return tuning; }
    public Path runDir() { return runDir; }
    public Path logDir() { return logDir; }
    public Pki pki() { return pki; }
    public String server() { return "https://127.0.0.1:" + apiPort; }
    /** The admin client (O=system:masters). Do not close it; {@link #close()} does. */
    public KubernetesClient client() { return admin; }

    /** A kubeconfig for a client certificate of {@code user} in {@code groups}, e.g. {@code system:node:n1}, {@code system:nodes}. */
    public Path kubeconfigFor(String user, List<String> groups) {
        String file = user.replaceAll("[^A-Za-z0-9._-]", "_");
        Pki.Pem pem = pki.client(file, user, groups);
        return Kubeconfig.withCert(runDir.resolve("kubeconfig").resolve(file), server(), pki.caPem(), pem);
    }

    /** A kubeconfig with a bound token of ServiceAccount {@code namespace/name} (TokenRequest, 24 h), so RBAC sees that account. */
    public Path kubeconfigForServiceAccount(String namespace, String name) {
        var req = new TokenRequestBuilder().withNewSpec().withExpirationSeconds(86_400L).endSpec().build();
        String token = admin.serviceAccounts().inNamespace(namespace).withName(name).tokenRequest(req).getStatus().getToken();
        return Kubeconfig.withToken(runDir.resolve("kubeconfig").resolve("sa-" + namespace + "-" + name), server(), pki.caPem(), token);
    }

    /** A new client for a kubeconfig file; the caller closes it. */
    public static KubernetesClient clientFor(Path kubeconfig) {
        try {
            Config config = Config.fromKubeconfig(Files.readString(kubeconfig));
            config.setRequestTimeout(60_000); // a loaded 2-core machine answers a list of hundreds of pods in seconds
            return new KubernetesClientBuilder().withConfig(config).build();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Creates a namespace (with labels) and waits for its default service account, without which no pod is admitted. */
    public void createNamespace(String name, Map<String, String> labels) {
        admin.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(name).withLabels(labels).endMetadata().build()).serverSideApply();
        waitFor("service account " + name + "/default", controllerManager,
                () -> admin.serviceAccounts().inNamespace(name).withName("default").get() != null);
    }

    /**
     * Starts a child process whose log goes to {@code logDir/name.log}; {@link #close()} stops it. Pinned to the
     * tuning's server CPUs when it names some ({@code taskset} execs the command, so the process keeps its PID).
     */
    public ManagedProcess spawn(String name, List<String> command, Map<String, String> env, Path logDir) {
        List<String> cmd = command;
        if (!tuning.serverCpus().isEmpty()) {
            cmd = new ArrayList<>(List.of("taskset", "-c", tuning.serverCpus()));
            cmd.addAll(command);
        }
        ManagedProcess p = ManagedProcess.start(name, cmd, env, logDir);
        processes.add(p);
        return p;
    }

    /** The processes running now, in start order. */
    public List<ManagedProcess> processes() {
        synchronized (processes) {
            return List.copyOf(processes);
        }
    }

    /** Stops one process this control plane started (SIGTERM, then SIGKILL). */
    public void stop(ManagedProcess p) {
        p.stop(Duration.ofSeconds(5));
        processes.remove(p);
    }

    private void startEtcd() {
        int client = freePort(), peer = freePort();
        etcdData = etcdDataDir();
        Path data = etcdData;
        List<String> cmd = new ArrayList<>(List.of(bin.etcd().toString(), "--data-dir", data.toString(), "--name", "e2e",
                "--listen-client-urls", "http://127.0.0.1:" + client, "--advertise-client-urls", "http://127.0.0.1:" + client,
                "--listen-peer-urls", "http://127.0.0.1:" + peer, "--initial-advertise-peer-urls", "http://127.0.0.1:" + peer,
                "--initial-cluster", "e2e=http://127.0.0.1:" + peer, "--log-level", "warn",
                "--quota-backend-bytes", String.valueOf(2L << 30)));
        cmd.addAll(tuning.etcdArgs());
        etcd = spawn("etcd", cmd, Map.of(), logDir);
        this.etcdPort = client;
        waitFor("etcd on 127.0.0.1:" + client, etcd, () -> portOpen(client));
    }

    private int etcdPort;
    private Path etcdData;

    /** etcd's data in memory (/dev/shm) where there is one: fsync on a busy VM's disk is what makes etcd slow. */
    private Path etcdDataDir() {
        Path shm = Path.of("/dev/shm");
        try {
            if (Files.isDirectory(shm) && Files.isWritable(shm)) return Files.createTempDirectory(shm, "mpshare-etcd-");
        } catch (IOException e) {
            // fall back to the run folder
        }
        return runDir.resolve("etcd");
    }

    private void deleteEtcdData() {
        if (etcdData == null || !etcdData.startsWith("/dev/shm")) return;
        try (var walk = Files.walk(etcdData)) {
            for (Path f : walk.sorted(Comparator.reverseOrder()).toList()) Files.deleteIfExists(f);
        } catch (IOException e) {
            // left in /dev/shm; the machine's reboot clears it
        }
    }

    private void startApiserver() {
        if (apiPort == 0) apiPort = freePort();
        pki.serving("apiserver", List.of("kubernetes", "kubernetes.default", "kubernetes.default.svc"));
        List<String> cmd = new ArrayList<>(List.of(bin.apiserver().toString(),
                "--etcd-servers=http://127.0.0.1:" + etcdPort,
                "--bind-address=127.0.0.1", "--advertise-address=127.0.0.1", "--secure-port=" + apiPort,
                "--tls-cert-file=" + pki.certFile("apiserver"), "--tls-private-key-file=" + pki.keyFile("apiserver"),
                "--client-ca-file=" + pki.caFile(),
                "--service-account-key-file=" + pki.saPubFile(), "--service-account-signing-key-file=" + pki.saKeyFile(),
                "--service-account-issuer=https://kubernetes.default.svc",
                "--service-cluster-ip-range=10.0.0.0/24", "--authorization-mode=Node,RBAC", "--allow-privileged=true",
                "--profiling=false", "--v=1"));
        cmd.addAll(tuning.apiserverArgs());
        apiserver = spawn("kube-apiserver", cmd, Map.of(), logDir);
        admin = clientFor(kubeconfigFor("e2e-admin", List.of("system:masters")));
        waitFor("kube-apiserver /readyz on " + server(), apiserver, this::apiReady);
    }

    private void startControllerManager() {
        Path kc = kubeconfigFor("system:kube-controller-manager", List.of());
        controllerManager = spawn("kube-controller-manager", List.of(bin.controllerManager().toString(),
                "--kubeconfig=" + kc, "--authentication-kubeconfig=" + kc, "--authorization-kubeconfig=" + kc,
                "--bind-address=127.0.0.1", "--secure-port=" + freePort(),
                "--controllers=" + CONTROLLERS, "--leader-elect=false", "--use-service-account-credentials=true",
                "--service-account-private-key-file=" + pki.saKeyFile(), "--root-ca-file=" + pki.caFile(),
                "--v=1"), Map.of(), logDir);
    }

    private boolean apiReady() {
        try {
            return "ok".equals(admin.raw("/readyz"));
        } catch (RuntimeException e) {
            return false;
        }
    }

    /** Polls {@code check} every 100 ms until true; fails naming what it waited for and the tail of the process's log. */
    public void waitFor(String what, ManagedProcess owner, BooleanSupplier check) {
        Instant end = Instant.now().plus(START_TIMEOUT);
        while (Instant.now().isBefore(end)) {
            if (owner != null && !owner.alive())
                throw new IllegalStateException(owner.name() + " exited while waiting for " + what + "; log " + owner.log() + ":\n" + owner.tail(20));
            try {
                if (check.getAsBoolean()) return;
            } catch (RuntimeException ignored) {
                // not yet
            }
            sleep(100);
        }
        throw new IllegalStateException("timed out after " + START_TIMEOUT.toSeconds() + " s waiting for " + what
                + (owner == null ? "" : "; log " + owner.log() + ":\n" + owner.tail(20)));
    }

    static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    public static int freePort() {
        try (var s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            s.setReuseAddress(true);
            return s.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static boolean portOpen(int port) {
        try (var s = new Socket(InetAddress.getLoopbackAddress(), port)) {
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    private void stopAll() {
        List<ManagedProcess> all;
        synchronized (processes) {
            all = new ArrayList<>(processes);
            processes.clear();
        }
        // reverse start order: extenders and schedulers, then the controller manager, apiserver, etcd
        Collections.reverse(all);
        for (ManagedProcess p : all) p.stop(Duration.ofSeconds(3));
        deleteEtcdData();
    }

    @Override public void close() {
        stopAll();
        if (admin != null) admin.close();
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException shuttingDown) {
            // the hook is running or has run
        }
    }
}
