package io.mpshare.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Each expected failure of issue 14, through the real command line: one line on stderr that names the file, URL or
 * flag, the documented exit code (docs/cli.md), nothing on stdout, no stack trace.
 */
class CliErrorsIT {
    @TempDir Path dir;

    private static void oneLine(CliRun r, int code, String... contains) {
        assertThat(r.exitCode()).as(r.err()).isEqualTo(code);
        assertThat(r.errLines()).as(r.err()).hasSize(1);
        assertThat(r.err()).contains(contains).doesNotContain("\tat ", "Exception");
        assertThat(r.out()).isEmpty();
    }

    private Path kubeconfig(String server) throws IOException {
        return Files.writeString(dir.resolve("kubeconfig"), """
                apiVersion: v1
                kind: Config
                clusters: [{name: dev, cluster: {server: "%s"}}]
                users: [{name: me, user: {token: t}}]
                contexts: [{name: dev, context: {cluster: dev, user: me}}]
                current-context: dev
                """.formatted(server));
    }

    private static int closedPort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    /** The arguments each API-server subcommand needs besides the kubeconfig to get as far as the API server. */
    private String[] apiCommand(String sub, String... kube) {
        String[] base = switch (sub) {
            case "device-plugin" -> new String[]{sub, "--node-name", "n1", "--fake-gpus", "16384", "--metrics-port", "0",
                    "--plugin-dir", dir.resolve("dp").toString(), "--run-dir", dir.resolve("run").toString()};
            case "scheduler-extender" -> new String[]{sub, "--port", "0"};
            case "webhook" -> new String[]{sub, "--port", "0", "--namespace", "mpshare-system"};
            case "upgrade-node" -> new String[]{sub, "n1"};
            default -> new String[]{sub};
        };
        String[] all = java.util.Arrays.copyOf(base, base.length + kube.length);
        System.arraycopy(kube, 0, all, base.length, kube.length);
        return all;
    }

    @ParameterizedTest
    @ValueSource(strings = {"device-plugin", "scheduler-extender", "webhook", "inspect", "upgrade-node"})
    void apiCommand_missingKubeconfig_namesTheFile(String sub) {
        Path nope = dir.resolve("no-such-kubeconfig");
        oneLine(CliRun.of(apiCommand(sub, "--kubeconfig", nope.toString())), ExitCodes.FAILED,
                "mpshare " + sub + ": --kubeconfig " + nope + ": no such file");
    }

    @ParameterizedTest
    @ValueSource(strings = {"device-plugin", "scheduler-extender", "webhook", "inspect", "upgrade-node"})
    void apiCommand_unknownContext_listsTheContexts(String sub) throws IOException {
        Path kc = kubeconfig("http://127.0.0.1:1");
        oneLine(CliRun.of(apiCommand(sub, "--kubeconfig", kc.toString(), "--context", "prod")), ExitCodes.USAGE,
                "mpshare " + sub + ": --context prod: no such context in --kubeconfig " + kc + " (it has: dev)");
    }

    @ParameterizedTest
    @ValueSource(strings = {"device-plugin", "scheduler-extender", "webhook", "inspect", "upgrade-node"})
    void apiCommand_serverDown_namesUrlAndFile(String sub) throws IOException {
        int port = closedPort();
        Path kc = kubeconfig("http://127.0.0.1:" + port);
        // the probe's message, not an informer's: nothing was started before the server answered
        oneLine(CliRun.of(apiCommand(sub, "--kubeconfig", kc.toString())), ExitCodes.FAILED, "mpshare " + sub + ": cannot reach the API server http://127.0.0.1:" + port
                + " (from --kubeconfig " + kc + ", context dev): connection refused");
    }

    @ParameterizedTest
    @ValueSource(strings = {"0", "2", "-1", "abc", "16384,", "0x16384", "16384,,8192"})
    void devicePlugin_fakeGpusRefused_saysWhatToWrite(String value) {
        oneLine(CliRun.of("device-plugin", "--node-name", "n1", "--fake-gpus", value), ExitCodes.USAGE,
                "mpshare device-plugin: --fake-gpus " + value + ": write each fake GPU's memory in MiB", "12036,16384,81559");
    }

    @Test void devicePlugin_noNodeName_saysFlagAndVariable() {
        CliRun r = CliRun.of("device-plugin", "--fake-gpus", "16384", "--node-name", " ");
        oneLine(r, ExitCodes.USAGE, "--node-name", "NODE_NAME");
    }

    @Test void devicePlugin_noNvml_namesTheLibraryAndFakeGpus() throws IOException {
        boolean gpu;
        try (var nvml = io.mpshare.nvml.FfmNvml.open()) {
            gpu = true;
        } catch (io.mpshare.nvml.NvmlException e) {
            gpu = false;
        }
        org.junit.jupiter.api.Assumptions.assumeFalse(gpu, "this machine has NVML and a GPU: the no-NVML message cannot be seen here");
        try (var api = new io.mpshare.cli.kube.TestApiServer(200)) {
            Path kc = io.mpshare.cli.kube.TestApiServer.kubeconfig(dir.resolve("kc"), "dev", "dev", api.url());
            oneLine(CliRun.of("device-plugin", "--node-name", "n1", "--kubeconfig", kc.toString(), "--metrics-port", "0",
                    "--plugin-dir", dir.resolve("dp").toString()), ExitCodes.FAILED,
                    "mpshare device-plugin: NVML is not available", "pass --fake-gpus MIB[,MIB...]");
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"ps", "run"})
    void hostClient_hostNotRunning_namesTheSocket(String sub) {
        Path socket = dir.resolve("host.sock");
        String[] args = sub.equals("ps") ? new String[]{"ps", "--socket", socket.toString()}
                : new String[]{"run", "--gpu-mem", "1", "--socket", socket.toString(), "--", "true"};
        oneLine(CliRun.of(args), sub.equals("ps") ? ExitCodes.FAILED : io.mpshare.host.JobRunner.REFUSED,
                "mpshare " + sub + ": mpshare host is not running: no socket at " + socket, "--socket");
    }

    @Test void webhook_mountedTlsFilesMissing_namesTheFiles() {
        Path cert = dir.resolve("tls.crt"), key = dir.resolve("tls.key");
        oneLine(CliRun.of("webhook", "--port", "0", "--namespace", "ns", "--largest-gpu-mib", "81559", "--no-client-uids",
                "--tls-cert-file", cert.toString(), "--tls-key-file", key.toString()), ExitCodes.FAILED,
                "mpshare webhook: cannot read the mounted TLS files " + cert + " and " + key, "no such file");
    }

    @Test void webhook_kubeletRootDirNotAbsolute_oneLineBeforeAnyApiCall() {
        oneLine(CliRun.of("webhook", "--port", "0", "--namespace", "ns", "--kubelet-root-dir", "var/lib/kubelet"), ExitCodes.USAGE,
                "mpshare webhook: kubelet root folder 'var/lib/kubelet' is not an absolute folder below /", "such as /var/lib/kubelet");
    }

    @Test void unknownOption_messageAndHintNotTheWholeUsage() {
        CliRun r = CliRun.of("inspect", "--kubecfg", "x");
        assertThat(r.exitCode()).isEqualTo(ExitCodes.USAGE);
        assertThat(r.errLines()).containsExactly("mpshare inspect: Unknown option: '--kubecfg'; did you mean --kubeconfig? ('mpshare inspect --help' lists the options)");
    }

    @Test void inspect_badOutput_oneLineUsage() {
        oneLine(CliRun.of("inspect", "-o", "yaml"), ExitCodes.USAGE, "mpshare inspect: -o yaml: use table or json");
    }

    @Test void upgradeNode_neitherNodeNorAll_oneLineUsage() {
        oneLine(CliRun.of("upgrade-node"), ExitCodes.USAGE, "mpshare upgrade-node: name one NODE, or --all");
    }
}
