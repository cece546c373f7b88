package io.mpshare.e2e.k8s;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code bin/dev-cluster up}'s answers that come before anything is built or started, through the script itself: a
 * wrong option and missing control-plane binaries are one line on the terminal, with the exit code, and no build.
 * Needs no binaries (it runs in every environment of this tier).
 */
@Timeout(120)
class DevClusterScriptIT {
    static final Path ROOT = Cluster.findRepoRoot(Path.of(""));
    @TempDir Path tmp;

    record Run(int exit, List<String> err) {}

    private Run up(Map<String, String> env, String... args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of(ROOT.resolve("bin/dev-cluster").toString(), "up"));
        cmd.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectOutput(ProcessBuilder.Redirect.DISCARD);
        pb.environment().putAll(env);
        Process p = pb.start();
        String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        return new Run(p.waitFor(), err.lines().toList());
    }

    @Test void misspelledOption_oneLineNamingTheKnownOnes_exit2() throws Exception {
        Run r = up(Map.of(), "--nodse", "3");
        assertThat(r.err()).containsExactly("dev-cluster: unknown option --nodse (known: --nodes, --gpus, --api-port, --extender-port)");
        assertThat(r.exit()).isEqualTo(2);
    }

    @Test void badValue_oneLine_exit2() throws Exception {
        Run r = up(Map.of(), "--nodes", "two");
        assertThat(r.err()).containsExactly("dev-cluster: --nodes takes a number, got 'two'");
        assertThat(r.exit()).isEqualTo(2);
    }

    @Test void noBinaries_oneLineBeforeAnyBuild_exit1() throws Exception {
        Path empty = Files.createDirectories(tmp.resolve("assets"));
        Run r = up(Map.of(Binaries.ENV_ASSETS, empty.toString()));
        assertThat(r.err()).containsExactly("dev-cluster: " + Binaries.ENV_ASSETS + "=" + empty + " has no executable kube-apiserver");
        assertThat(r.exit()).isEqualTo(1);
    }
}
