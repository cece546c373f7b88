package io.mpshare.cli.kube;

import io.mpshare.cli.kube.KubeconfigResolver.Resolution;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class KubeconfigResolverTest {
    @TempDir Path dir;

    private Path file(String name) throws IOException {
        Path p = dir.resolve(name);
        Files.createDirectories(p.getParent());
        return Files.writeString(p, "apiVersion: v1\nkind: Config\n");
    }

    private KubeEnvironment env(String variable, boolean inCluster) {
        return new KubeEnvironment(variable, dir.resolve("home"), inCluster);
    }

    private static String missing(Resolution r) {
        assertThat(r).isInstanceOf(Resolution.Missing.class);
        return ((Resolution.Missing) r).reason();
    }

    private static KubeconfigSource found(Resolution r) {
        assertThat(r).isInstanceOf(Resolution.Found.class);
        return ((Resolution.Found) r).source();
    }

    @Test void resolve_flagWins_overVariableHomeAndCluster() throws IOException {
        Path flag = file("flag.yaml");
        file("home/.kube/config");
        Path variable = file("var.yaml");
        assertThat(found(KubeconfigResolver.resolve(flag, env(variable.toString(), true)))).isEqualTo(new KubeconfigSource.Flag(flag));
    }

    @Test void resolve_flagFileMissing_namesFileAndSaysHowToWriteOne() {
        Path nope = dir.resolve("nope.yaml");
        assertThat(missing(KubeconfigResolver.resolve(nope, env(null, true))))
                .startsWith("--kubeconfig " + nope + ": no such file").contains("kubectl config view --raw");
    }

    @Test void resolve_flagIsFolder_saysPassTheFile() {
        assertThat(missing(KubeconfigResolver.resolve(dir, env(null, false)))).contains("is a folder");
    }

    @Test void resolve_variable_keepsTheFilesThatExistInOrder() throws IOException {
        Path a = file("a.yaml");
        Path b = file("b.yaml");
        String value = dir.resolve("gone.yaml") + ":" + b + ":" + a;
        assertThat(found(KubeconfigResolver.resolve(null, env(value, false)))).isEqualTo(new KubeconfigSource.Variable(value, List.of(b, a)));
    }

    @Test void resolve_variableNamesNoFile_isAnErrorNotAFallThrough() throws IOException {
        file("home/.kube/config");
        String value = dir.resolve("x") + ":" + dir.resolve("y");
        assertThat(missing(KubeconfigResolver.resolve(null, env(value, true))))
                .startsWith("KUBECONFIG=" + value + " names no file that exists").contains("--kubeconfig FILE");
    }

    @Test void resolve_blankVariable_fallsToHome() throws IOException {
        Path home = file("home/.kube/config");
        assertThat(found(KubeconfigResolver.resolve(null, env("  ", true)))).isEqualTo(new KubeconfigSource.Home(home));
    }

    @Test void resolve_noKubeconfigInAPod_isTheServiceAccount() {
        assertThat(found(KubeconfigResolver.resolve(null, env(null, true)))).isEqualTo(new KubeconfigSource.InCluster());
    }

    @Test void resolve_nothingAnywhere_namesEveryPlaceLookedAt() {
        assertThat(missing(KubeconfigResolver.resolve(null, env(null, false))))
                .startsWith("no kubeconfig:").contains("--kubeconfig", "KUBECONFIG", dir.resolve("home/.kube/config").toString(), "service account");
    }
}
