package io.mpshare.e2e.node;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A real kubelet (v1.31.14 from ../shared/k8s) on containerd, registered as {@code system:node:<name>}. Its root
 * and logs live under {@code dir}; its device-plugin folder cannot move: kubelet serves
 * {@code /var/lib/kubelet/device-plugins/kubelet.sock} whatever {@code --root-dir} says (so one kubelet per machine),
 * while pod-resources follows the root: {@code <root>/pod-resources/kubelet.sock}. Logged at {@code --v=2}, where it
 * prints each ListAndWatch update ({@code healthyCount}). {@link #stop} and {@link #start} again model a kubelet
 * restart: the containers keep running.
 */
final class Kubelet implements AutoCloseable {
    /** How kubelet reaches the API server: URL, the server's CA, and its client certificate for system:node:NAME. */
    record ApiAccess(String server, Path caCert, Path clientCert, Path clientKey) {}

    private final Path binary;
    private final Path dir;
    private final String nodeName;
    private final List<String> labels;
    private Daemon daemon;

    private final boolean standalone;

    /** A node of {@code api}'s cluster; with no API, standalone: it runs the static pods of {@code dir/manifests}. */
    Kubelet(Path binary, Path dir, String nodeName, List<String> labels, Optional<ApiAccess> api, Path containerdSocket) throws IOException {
        this.binary = binary;
        this.dir = dir;
        this.nodeName = nodeName;
        this.labels = labels;
        this.standalone = api.isEmpty();
        Files.createDirectories(dir.resolve("manifests"));
        if (api.isPresent()) Files.writeString(dir.resolve("kubeconfig"), kubeconfig(api.get()));
        Files.writeString(dir.resolve("config.yaml"), config(dir, containerdSocket, freePort(), freePort()));
    }

    static String kubeconfig(ApiAccess api) {
        return """
                apiVersion: v1
                kind: Config
                clusters: [{name: e2e, cluster: {server: "%s", certificate-authority: "%s"}}]
                users: [{name: node, user: {client-certificate: "%s", client-key: "%s"}}]
                contexts: [{name: node, context: {cluster: e2e, user: node}}]
                current-context: node
                """.formatted(api.server(), api.caCert(), api.clientCert(), api.clientKey());
    }

    static String config(Path dir, Path containerdSocket, int port, int healthzPort) {
        return """
                apiVersion: kubelet.config.k8s.io/v1beta1
                kind: KubeletConfiguration
                cgroupDriver: cgroupfs
                containerRuntimeEndpoint: unix://%1$s
                address: 127.0.0.1
                port: %2$d
                readOnlyPort: 0
                healthzBindAddress: 127.0.0.1
                healthzPort: %3$d
                authentication: {anonymous: {enabled: false}, webhook: {enabled: false}}
                authorization: {mode: AlwaysAllow}
                failSwapOn: false
                imageGCHighThresholdPercent: 100
                imageGCLowThresholdPercent: 99
                evictionHard: {memory.available: "100Mi"}
                podLogsDir: %4$s/pod-logs
                resolvConf: /etc/resolv.conf
                staticPodPath: %4$s/manifests
                """.formatted(containerdSocket, port, healthzPort, dir);
    }

    Path root() { return dir.resolve("root"); }

    Path podResourcesSocket() { return root().resolve("pod-resources/kubelet.sock"); }

    Path log() { return dir.resolve("kubelet.log"); }

    Path staticPods() { return dir.resolve("manifests"); }

    Daemon daemon() { return daemon; }

    void start() throws IOException {
        if (daemon != null && daemon.alive()) throw new IllegalStateException("kubelet already running");
        List<String> cmd = new ArrayList<>(List.of(binary.toString(), "--config", dir.resolve("config.yaml").toString(),
                "--root-dir", root().toString(), "--cert-dir", dir.resolve("pki").toString(), "--hostname-override", nodeName, "--v=2"));
        if (!standalone) cmd.addAll(List.of("--kubeconfig", dir.resolve("kubeconfig").toString()));
        if (!labels.isEmpty()) cmd.addAll(List.of("--node-labels", String.join(",", labels)));
        daemon = Daemon.start("kubelet", cmd, Map.of("PATH", Containerd.SYSTEM_PATH), log());
    }

    /** SIGTERM and wait: kubelet exits and leaves its containers running. */
    void stop() throws InterruptedException {
        if (daemon != null) daemon.close();
    }

    @Override public void close() throws IOException, InterruptedException {
        stop();
        Host.unmountUnder(root());
    }

    static int freePort() throws IOException {
        try (var s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    @Override public String toString() { return "kubelet " + nodeName + " (" + dir + ")"; }
}
