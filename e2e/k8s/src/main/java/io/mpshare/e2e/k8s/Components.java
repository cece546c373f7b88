package io.mpshare.e2e.k8s;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.mpshare.core.Names;

import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManager;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.X509ExtendedTrustManager;
import java.net.Socket;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.UnaryOperator;

/**
 * Starts the processes the chart's scheduler Deployment runs, with the chart's own arguments and configuration:
 * kube-scheduler ({@link #scheduler}) and {@code mpshare scheduler-extender} from the shaded jar ({@link #extender}),
 * both as the chart's ServiceAccount. Each is a child process of the control plane; kill it with
 * {@link ManagedProcess#kill9()}.
 */
public final class Components {
    private final ControlPlane cp;
    private final ChartDeployment chart;
    private final Path jar;
    private final Path accountKubeconfig;
    private final HttpClient http;

    /** A started extender: its process and port. */
    public record Extender(ManagedProcess process, int port) {
        public String url() { return "http://127.0.0.1:" + port + Names.EXTENDER_PREFIX; }
    }

    /** A started kube-scheduler: its process, profile name, the configuration file it read and its secure port. */
    public record Scheduler(ManagedProcess process, String schedulerName, Path config, int port) {
        public String url() { return "https://127.0.0.1:" + port; }
    }

    /**
     * Settings a test varies on the chart's scheduler configuration: the profile name (pods opt in with
     * {@code spec.schedulerName}), the extender it calls, and leader election (off for one replica; short leases for
     * failover tests).
     */
    public record SchedulerSettings(String schedulerName, int extenderPort, boolean leaderElect, Duration leaseDuration) {
        public static SchedulerSettings single(String schedulerName, int extenderPort) {
            return new SchedulerSettings(schedulerName, extenderPort, false, Duration.ofSeconds(15));
        }
    }

    public Components(ControlPlane cp, ChartDeployment chart, Path jar) {
        if (!Files.isRegularFile(jar))
            throw new IllegalStateException("no " + jar + ": build it first (mvn -B -ntp -pl cli -am package -DskipTests, or bin/mpshare --help)");
        this.cp = cp;
        this.chart = chart;
        this.jar = jar;
        this.accountKubeconfig = cp.kubeconfigForServiceAccount(ChartDeployment.NAMESPACE, ChartDeployment.SCHEDULER_ACCOUNT);
        this.http = trustingLoopback();
    }

    public Path schedulerAccountKubeconfig() { return accountKubeconfig; }

    /** {@code mpshare scheduler-extender} with the chart's extender arguments ({@code --port} and {@code --probe-port} set to free ones, then {@code extra}, whose flags replace the chart's but for {@code --scheduler-name}, which adds); waits for readyz. */
    public Extender extender(String name, List<String> extra, Path logDir) {
        return extender(name, ControlPlane.freePort(), extra, logDir);
    }

    /** As {@link #extender(String, List, Path)} on a given port. */
    public Extender extender(String name, int port, List<String> extra, Path logDir) {
        return extender(name, port, List.of(), extra, logDir);
    }

    /** As {@link #extender(String, int, List, Path)} with options for its JVM ({@code jvmArgs}, after {@code -Xmx512m}: a later -Xmx wins). */
    public Extender extender(String name, int port, List<String> jvmArgs, List<String> extra, Path logDir) {
        List<String> cmd = new ArrayList<>(List.of(javaBin(), "-Xmx512m"));
        cmd.addAll(jvmArgs);
        cmd.addAll(List.of("-jar", jar.toString()));
        Set<String> given = new HashSet<>(); // a flag in extra replaces the chart's (--scheduler-name adds to it)
        for (String a : extra) if (a.contains("=") && !a.startsWith("--scheduler-name=")) given.add(a.substring(0, a.indexOf('=') + 1));
        for (String a : container("mpshare-scheduler", "extender").getArgs()) {
            if (a.contains("=") && given.contains(a.substring(0, a.indexOf('=') + 1))) continue;
            if (a.startsWith("--port=")) cmd.add("--port=" + port);
            else if (a.startsWith("--probe-port=")) cmd.add("--probe-port=" + ControlPlane.freePort()); // extenders side by side
            else cmd.add(a);
        }
        cmd.addAll(extra);
        ManagedProcess p = cp.spawn(name, cmd, Map.of("KUBECONFIG", accountKubeconfig.toString()), logDir);
        var e = new Extender(p, port);
        cp.waitFor("extender " + name + " readyz on " + e.url(), p, () -> get(e.url() + "/readyz") == 200);
        return e;
    }

    /** kube-scheduler with the chart's configuration changed only as {@code s} says; waits for /healthz. */
    public Scheduler scheduler(String name, SchedulerSettings s, Path logDir) {
        return scheduler(name, s, UnaryOperator.identity(), List.of(), logDir);
    }

    /**
     * As {@link #scheduler(String, SchedulerSettings, Path)}, the configuration (as a YAML map, after {@code s} was
     * applied) then changed by {@code edit} and {@code extraArgs} added after the chart's arguments: what a benchmark
     * changes, such as {@code clientConnection.qps}.
     */
    public Scheduler scheduler(String name, SchedulerSettings s, UnaryOperator<Map<String, Object>> edit, List<String> extraArgs, Path logDir) {
        Path config = writeConfig(name, s, edit);
        int port = ControlPlane.freePort();
        List<String> cmd = new ArrayList<>(List.of(cp.binaries().scheduler().toString()));
        for (String a : container("mpshare-scheduler", "kube-scheduler").getCommand().subList(1, container("mpshare-scheduler", "kube-scheduler").getCommand().size()))
            cmd.add(a.startsWith("--config=") ? "--config=" + config : a);
        cmd.addAll(List.of("--authentication-kubeconfig=" + accountKubeconfig, "--authorization-kubeconfig=" + accountKubeconfig,
                "--bind-address=127.0.0.1", "--secure-port=" + port, "--cert-dir=" + cp.runDir().resolve("certs-" + name)));
        cmd.addAll(extraArgs);
        ManagedProcess p = cp.spawn(name, cmd, Map.of(), logDir);
        cp.waitFor("kube-scheduler " + name + " /healthz on :" + port, p, () -> get("https://127.0.0.1:" + port + "/healthz") == 200);
        return new Scheduler(p, s.schedulerName(), config, port);
    }

    @SuppressWarnings("unchecked")
    Path writeConfig(String name, SchedulerSettings s, UnaryOperator<Map<String, Object>> edit) {
        var yaml = new KubernetesSerialization();
        Map<String, Object> conf = yaml.unmarshal(chart.schedulerConfig(), LinkedHashMap.class);
        conf.put("clientConnection", Map.of("kubeconfig", accountKubeconfig.toString()));
        var le = (Map<String, Object>) conf.computeIfAbsent("leaderElection", k -> new LinkedHashMap<>());
        le.put("leaderElect", s.leaderElect());
        le.put("resourceName", s.schedulerName());
        if (s.leaderElect()) {
            Duration lease = s.leaseDuration();
            le.put("leaseDuration", lease.toMillis() + "ms");
            le.put("renewDeadline", lease.toMillis() * 2 / 3 + "ms");
            le.put("retryPeriod", Math.max(200, lease.toMillis() / 8) + "ms");
        }
        for (var profile : (List<Map<String, Object>>) conf.get("profiles")) profile.put("schedulerName", s.schedulerName());
        for (var ext : (List<Map<String, Object>>) conf.get("extenders")) {
            String url = (String) ext.get("urlPrefix");
            ext.put("urlPrefix", url.replaceFirst("^http://127\\.0\\.0\\.1:\\d+", "http://127.0.0.1:" + s.extenderPort()));
        }
        conf = edit.apply(conf);
        try {
            Path file = cp.runDir().resolve("scheduler-" + name + ".yaml");
            Files.writeString(file, yaml.asYaml(conf));
            return file;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    Container container(String deployment, String container) {
        return chart.objects().stream().filter(Deployment.class::isInstance).map(Deployment.class::cast)
                .filter(d -> d.getMetadata().getName().equals(deployment))
                .flatMap(d -> d.getSpec().getTemplate().getSpec().getContainers().stream())
                .filter(c -> c.getName().equals(container)).findFirst()
                .orElseThrow(() -> new IllegalStateException("the chart has no container " + container + " in Deployment " + deployment));
    }

    static String javaBin() {
        return ProcessHandle.current().info().command().orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    }

    /** One scrape of a loopback metrics endpoint (certificates not checked, as {@link #get}). */
    public Metrics metrics(String url) { return Metrics.scrape(http, url); }

    /** The body of a GET of {@code url} (200 only), waiting at most {@code timeout}: a kube-scheduler's CPU profile, say. */
    public byte[] fetch(String url, Duration timeout) throws IOException, InterruptedException {
        var r = http.send(HttpRequest.newBuilder(URI.create(url)).timeout(timeout).build(), HttpResponse.BodyHandlers.ofByteArray());
        if (r.statusCode() != 200) throw new IOException(url + " answered " + r.statusCode());
        return r.body();
    }

    /** HTTP status of a GET, or -1 when nothing answers. Loopback health checks only: certificates are not checked. */
    public int get(String url) {
        try {
            return http.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(2)).GET().build(),
                    HttpResponse.BodyHandlers.discarding()).statusCode();
        } catch (IOException e) {
            return -1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return -1;
        }
    }

    private static HttpClient trustingLoopback() {
        try {
            SSLContext ssl = SSLContext.getInstance("TLS");
            // an X509ExtendedTrustManager that accepts all: JSSE then adds no host name check either
            ssl.init(null, new TrustManager[]{new X509ExtendedTrustManager() {
                @Override public void checkClientTrusted(X509Certificate[] c, String a) {}
                @Override public void checkServerTrusted(X509Certificate[] c, String a) {}
                @Override public void checkClientTrusted(X509Certificate[] c, String a, Socket s) {}
                @Override public void checkServerTrusted(X509Certificate[] c, String a, Socket s) {}
                @Override public void checkClientTrusted(X509Certificate[] c, String a, SSLEngine e) {}
                @Override public void checkServerTrusted(X509Certificate[] c, String a, SSLEngine e) {}
                @Override public X509Certificate[] getAcceptedIssuers() { return new X509Certificate[0]; }
            }}, null);
            return HttpClient.newBuilder().sslContext(ssl).connectTimeout(Duration.ofSeconds(2)).build();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }
}
