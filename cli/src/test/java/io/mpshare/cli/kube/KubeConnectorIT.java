package io.mpshare.cli.kube;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.mpshare.cli.CliFailure;
import io.mpshare.cli.ExitCodes;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The one place that builds the fabric8 client, against real HTTP servers on loopback. */
class KubeConnectorIT {
    @TempDir Path dir;

    private KubeConnector connector() {
        return new KubeConnector(new KubeEnvironment(null, dir.resolve("home"), false), Duration.ofSeconds(5));
    }

    private static CliFailure failure(Runnable r) {
        try {
            r.run();
        } catch (CliFailure f) {
            return f;
        }
        throw new AssertionError("expected a CliFailure");
    }

    @Test void connect_reachableServer_clientForTheCurrentContext() throws Exception {
        try (TestApiServer up = new TestApiServer(200)) {
            Path kc = TestApiServer.kubeconfig(dir.resolve("kc"), "good", "good", up.url(), "other", "http://127.0.0.1:" + TestApiServer.closedPort());
            try (KubernetesClient client = connector().connect(new KubeOptions(kc, null))) {
                assertThat(client.getMasterUrl().toString()).startsWith(up.url());
            }
            assertThat(up.versionRequests.get()).isEqualTo(1);
        }
    }

    @Test void connect_contextFlag_picksThatContextsServer() throws Exception {
        try (TestApiServer up = new TestApiServer(200)) {
            Path kc = TestApiServer.kubeconfig(dir.resolve("kc"), "down", "down", "http://127.0.0.1:" + TestApiServer.closedPort(), "up", up.url());
            try (KubernetesClient client = connector().connect(new KubeOptions(kc, "up"))) {
                assertThat(client.getMasterUrl().toString()).startsWith(up.url());
            }
        }
    }

    @Test void target_unknownContext_namesTheFileAndListsTheContexts() throws Exception {
        Path kc = TestApiServer.kubeconfig(dir.resolve("kc"), "a", "a", "http://127.0.0.1:1", "b", "http://127.0.0.1:2");
        CliFailure f = failure(() -> connector().target(new KubeOptions(kc, "prod")));
        assertThat(f.exitCode()).isEqualTo(ExitCodes.USAGE);
        assertThat(f.getMessage()).isEqualTo("--context prod: no such context in --kubeconfig " + kc + " (it has: a, b)");
    }

    @Test void target_noCurrentContext_asksForContext() throws Exception {
        Path kc = TestApiServer.kubeconfig(dir.resolve("kc"), null, "a", "http://127.0.0.1:1");
        assertThat(failure(() -> connector().target(new KubeOptions(kc, null))).getMessage())
                .isEqualTo("--kubeconfig " + kc + " sets no current-context: pass --context NAME (it has: a)");
    }

    @Test void target_notAKubeconfig_saysSo() throws Exception {
        Path kc = Files.writeString(dir.resolve("kc"), "just: [text\n");
        CliFailure f = failure(() -> connector().target(new KubeOptions(kc, null)));
        assertThat(f.exitCode()).isEqualTo(ExitCodes.FAILED);
        assertThat(f.getMessage()).startsWith("--kubeconfig " + kc + " cannot be read as a kubeconfig");
    }

    @Test void target_missingFlagFile_failedWithTheFile() {
        Path kc = dir.resolve("missing");
        CliFailure f = failure(() -> connector().target(new KubeOptions(kc, null)));
        assertThat(f.exitCode()).isEqualTo(ExitCodes.FAILED);
        assertThat(f.getMessage()).startsWith("--kubeconfig " + kc + ": no such file");
    }

    @Test void connect_serverDown_oneLineWithUrlFileAndContext() throws Exception {
        int port = TestApiServer.closedPort();
        Path kc = TestApiServer.kubeconfig(dir.resolve("kc"), "dev", "dev", "http://127.0.0.1:" + port);
        CliFailure f = failure(() -> connector().connect(new KubeOptions(kc, null)));
        assertThat(f.exitCode()).isEqualTo(ExitCodes.FAILED);
        assertThat(f.getMessage()).isEqualTo("cannot reach the API server http://127.0.0.1:" + port + " (from --kubeconfig " + kc
                + ", context dev): connection refused: nothing listens on 127.0.0.1:" + port + ". Is the API server running? "
                + "Check the cluster's server: in the kubeconfig, or choose another with --kubeconfig / --context");
    }

    @Test void connect_tokenRefused_saysCredentialsNotNetwork() throws Exception {
        try (TestApiServer refusing = new TestApiServer(401)) {
            Path kc = TestApiServer.kubeconfig(dir.resolve("kc"), "dev", "dev", refusing.url());
            CliFailure f = failure(() -> connector().connect(new KubeOptions(kc, null)));
            assertThat(f.getMessage()).contains(refusing.url(), "credentials were refused (401 Unauthorized)", "Renew the token");
            assertThat(refusing.versionRequests.get()).as("no backoff retries (fabric8 repeats a 401 once, after a token refresh)").isBetween(1, 2);
            assertThat(refusing.lastAuthorizationMissing.get()).as("the kubeconfig's token was sent").isZero();
        }
    }

    @Test void target_contextInAPod_refusedWithoutKubeconfig() {
        KubeConnector inPod = new KubeConnector(new KubeEnvironment(null, dir.resolve("home"), true), Duration.ofSeconds(5));
        assertThat(failure(() -> inPod.target(new KubeOptions(null, "x"))).getMessage()).contains("pass --kubeconfig FILE too");
    }

    @Test void target_variableWithOneFile_describesIt() throws Exception {
        Path kc = TestApiServer.kubeconfig(dir.resolve("kc"), "a", "a", "http://127.0.0.1:1");
        KubeConnector viaVariable = new KubeConnector(new KubeEnvironment(kc.toString(), dir.resolve("home"), false), Duration.ofSeconds(5));
        KubeConnector.Target t = viaVariable.target(new KubeOptions(null, null));
        assertThat(t.describe()).isEqualTo("http://127.0.0.1:1 (from KUBECONFIG " + kc + ", context a)");
    }
}
