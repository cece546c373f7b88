package io.mpshare.e2e.k8s;

import io.fabric8.kubernetes.api.model.Node;
import io.mpshare.core.Names;
import io.mpshare.core.codec.InventoryCodec;
import io.mpshare.core.model.Gpu;
import io.mpshare.e2e.k8s.junit.RealControlPlane;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The mpshare jar's own path to the API server (docs/cli.md) against the real kube-apiserver: {@code --kubeconfig},
 * {@code --context}, the start-up probe's messages for a refused token and an untrusted CA, and the device plugin on
 * {@code --fake-gpus} publishing its inventory on a node, as docs/quickstart.md does by hand.
 */
@ExtendWith(RealControlPlane.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class CliKubeconfigIT {
    private Cluster cluster;
    private Path admin;
    @TempDir Path dir;

    record Run(int exit, String out, String err) {}

    @BeforeAll
    void setUp(Cluster cluster) {
        this.cluster = cluster;
        admin = cluster.controlPlane().kubeconfigFor("cli-admin", List.of("system:masters"));
        GpuNodes.create(cluster.client(), GpuNodes.Spec.h200("cli-n1", 2, Map.of()));
        GpuNodes.create(cluster.client(), GpuNodes.Spec.h200("cli-dp", 1, Map.of())); // the agent replaces its inventory
    }

    private List<String> mpshare(String... args) {
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--enable-native-access=ALL-UNNAMED", "-jar", Cluster.jar(cluster.repoRoot()).toString()));
        cmd.addAll(List.of(args));
        return cmd;
    }

    private Run run(String... args) throws IOException, InterruptedException {
        Path out = dir.resolve("out-" + System.nanoTime()), err = dir.resolve("err-" + System.nanoTime());
        ProcessBuilder pb = new ProcessBuilder(mpshare(args)).redirectOutput(out.toFile()).redirectError(err.toFile());
        pb.environment().remove("KUBECONFIG");
        Process p = pb.start();
        if (!p.waitFor(120, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("mpshare " + String.join(" ", args) + " did not end");
        }
        return new Run(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8), Files.readString(err, StandardCharsets.UTF_8));
    }

    private static int closedPort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    @Test void inspect_kubeconfigFlag_readsTheRealServer() throws Exception {
        Run r = run("inspect", "cli-n1", "--kubeconfig", admin.toString());
        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(r.out()).contains("cli-n1");
        assertThat(r.err()).isEmpty();
    }

    @Test void inspect_contextFlag_choosesTheRealServerOverTheCurrentOne() throws Exception {
        int down = closedPort();
        String text = Files.readString(admin)
                .replace("clusters:\n", "clusters:\n- name: down\n  cluster: {server: \"https://127.0.0.1:" + down + "\"}\n")
                .replace("contexts:\n", "contexts:\n- name: down\n  context: {cluster: down, user: me}\n")
                .replace("current-context: mpshare-e2e", "current-context: down");
        Path kc = Files.writeString(dir.resolve("two-contexts"), text);

        Run current = run("inspect", "--kubeconfig", kc.toString());
        assertThat(current.exit()).isEqualTo(1);
        assertThat(current.err().lines().toList()).containsExactly("mpshare inspect: cannot reach the API server https://127.0.0.1:" + down
                + " (from --kubeconfig " + kc + ", context down): connection refused: nothing listens on 127.0.0.1:" + down
                + ". Is the API server running? Check the cluster's server: in the kubeconfig, or choose another with --kubeconfig / --context");

        Run chosen = run("inspect", "cli-n1", "--kubeconfig", kc.toString(), "--context", "mpshare-e2e");
        assertThat(chosen.exit()).as(chosen.err()).isZero();
        assertThat(chosen.out()).contains("cli-n1");
    }

    @Test void inspect_tokenRefusedByTheRealServer_saysCredentials() throws Exception {
        Path kc = Kubeconfig.withToken(dir.resolve("bad-token"), cluster.controlPlane().server(), cluster.controlPlane().pki().caPem(), "not-a-token");
        Run r = run("inspect", "--kubeconfig", kc.toString());
        assertThat(r.exit()).isEqualTo(1);
        assertThat(r.err().lines().toList()).singleElement().asString()
                .startsWith("mpshare inspect: cannot reach the API server " + cluster.controlPlane().server())
                .contains("the credentials were refused (401 Unauthorized)");
    }

    @Test void inspect_untrustedServerCertificate_saysTls() throws Exception {
        String otherCa = Pki.create(dir.resolve("other-pki")).caPem();
        Path kc = Kubeconfig.withToken(dir.resolve("other-ca"), cluster.controlPlane().server(), otherCa, "t");
        Run r = run("inspect", "--kubeconfig", kc.toString());
        assertThat(r.exit()).isEqualTo(1);
        assertThat(r.err().lines().toList()).singleElement().asString().contains("TLS failed", "certificate-authority");
    }

    @Test void devicePlugin_fakeGpus_publishesTheirSizesAndModelOnTheNode() throws Exception {
        ManagedProcess agent = cluster.controlPlane().spawn("cli-device-plugin", mpshare("device-plugin", "--node-name", "cli-dp",
                "--fake-gpus", "12036,16384,81559", "--fake-gpu-model", "NVIDIA A100", "--kubeconfig", admin.toString(),
                "--plugin-dir", dir.resolve("dp").toString(), "--run-dir", dir.resolve("run").toString(),
                "--daemon-probe", "none", "--no-police", "--metrics-port", "0"), Map.of(), dir);
        try {
            cluster.controlPlane().waitFor("cli-dp's inventory from the fake GPUs", agent, () -> {
                Node n = cluster.client().nodes().withName("cli-dp").get();
                String inv = n.getMetadata().getAnnotations().get(Names.ANN_NODE_GPUS);
                return inv != null && InventoryCodec.decode("cli-dp", inv).gpus().size() == 3;
            });
            List<Gpu> gpus = InventoryCodec.decode("cli-dp", cluster.client().nodes().withName("cli-dp").get()
                    .getMetadata().getAnnotations().get(Names.ANN_NODE_GPUS)).gpus();
            assertThat(gpus).extracting(Gpu::totalMib).containsExactly(12036L, 16384L, 81559L);
            assertThat(gpus).extracting(Gpu::model).containsOnly("NVIDIA A100");
        } finally {
            cluster.controlPlane().stop(agent);
        }
    }
}
