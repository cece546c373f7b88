package io.mpshare.e2e.k8s;

import io.fabric8.kubernetes.client.KubernetesClient;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.Map;

/**
 * Everything a scenario needs, made once: the control plane, the chart rendered with its defaults and its RBAC applied,
 * and {@link Components} to start schedulers and extenders as the chart's ServiceAccount. {@link #start} finds the
 * binaries ({@link Binaries}), the checkout (by its {@code charts/mpshare/Chart.yaml}) and the shaded jar.
 */
public record Cluster(ControlPlane controlPlane, ChartDeployment chart, Components components, Webhooks webhooks, Path repoRoot, Path logRoot) implements AutoCloseable {

    public KubernetesClient client() { return controlPlane.client(); }

    /** Per-test log folder {@code logRoot/<name>/}. */
    public Path logs(String name) { return logRoot.resolve(name); }

    /** Starts the control plane under {@code targetDir} (run files in {@code k8s-run/}, logs in {@code k8s-logs/}). */
    public static Cluster start(Binaries bin, Path repoRoot, Path targetDir, Map<String, Object> chartValues) {
        String stamp = LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss-SSS"));
        return start(bin, repoRoot, targetDir.resolve("k8s-run").resolve(stamp), targetDir.resolve("k8s-logs"), 0, chartValues);
    }

    /** Starts with run files in {@code run}, logs in {@code logs}, kube-apiserver on {@code apiPort} (0: free). */
    public static Cluster start(Binaries bin, Path repoRoot, Path run, Path logs, int apiPort, Map<String, Object> chartValues) {
        return start(bin, repoRoot, run, logs, apiPort, chartValues, ControlPlane.Tuning.DEFAULT);
    }

    /** As above, the control plane's servers (and the components started through it) run as {@code tuning} says. */
    public static Cluster start(Binaries bin, Path repoRoot, Path run, Path logs, int apiPort, Map<String, Object> chartValues,
                                ControlPlane.Tuning tuning) {
        ControlPlane cp = ControlPlane.start(bin, run, logs.resolve("control-plane"), apiPort, tuning);
        try {
            ChartDeployment chart = ChartDeployment.render(chartDir(repoRoot), chartValues);
            chart.applyTo(cp);
            Path jar = jar(repoRoot);
            Components components = new Components(cp, chart, jar);
            return new Cluster(cp, chart, components, new Webhooks(cp, chart, jar), repoRoot, logs);
        } catch (RuntimeException e) {
            cp.close();
            throw e;
        }
    }

    /** The chart to deploy: {@code $MPSHARE_E2E_CHART} if set (e.g. an exported commit), else the checkout's {@code charts/mpshare}. */
    public static Path chartDir(Path repoRoot) {
        String env = System.getenv(ENV_CHART);
        return env != null && !env.isBlank() ? Path.of(env) : repoRoot.resolve("charts/mpshare");
    }

    public static final String ENV_CHART = "MPSHARE_E2E_CHART";
    public static final String ENV_JAR = "MPSHARE_JAR";

    /** The mpshare jar the components run: {@code $MPSHARE_JAR} if set, else the checkout's {@code cli/target/mpshare.jar}. */
    public static Path jar(Path repoRoot) {
        String env = System.getenv(ENV_JAR);
        return env != null && !env.isBlank() ? Path.of(env) : repoRoot.resolve("cli/target/mpshare.jar");
    }

    /** The checkout: the first folder at or above {@code from} holding {@code charts/mpshare/Chart.yaml}. */
    public static Path findRepoRoot(Path from) {
        for (Path p = from.toAbsolutePath().normalize(); p != null; p = p.getParent())
            if (Files.isRegularFile(p.resolve("charts/mpshare/Chart.yaml"))) return p;
        throw new IllegalStateException("no mpshare checkout (charts/mpshare/Chart.yaml) at or above " + from.toAbsolutePath());
    }

    @Override public void close() { controlPlane.close(); }
}
