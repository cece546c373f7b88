package io.mpshare.mps.preflight;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class CommandLinesTest {
    @Test void mpshareJar_isMpshareAndItsSubcommand() {
        assertThat(CommandLines.summary("/usr/lib/jvm/temurin-25/bin/java", "--enable-native-access=ALL-UNNAMED", "-jar",
                "/src/mpshare/cli/target/mpshare.jar", "device-plugin", "--node-name", "gpu-node-0")).isEqualTo("mpshare device-plugin");
        assertThat(CommandLines.summary("java", "-cp", "a.jar", "io.mpshare.cli.Main", "mps-control", "--colour", "blue"))
                .isEqualTo("mpshare mps-control");
    }

    @Test void otherProgram_isItsNameAndArguments_cut() {
        assertThat(CommandLines.summary("/usr/bin/python3", "-m", "http.server", "39996")).isEqualTo("python3 -m http.server 39996");
        String longOne = CommandLines.summary("/bin/sleep", "x".repeat(200));
        assertThat(longOne).hasSize(CommandLines.MAX).startsWith("sleep xxx").endsWith("...");
    }

    @Test void otherJvm_isJavaWithItsJarOrMainClass() {
        assertThat(CommandLines.summary("/usr/bin/java", "-XX:+EnableDynamicAgentLoading", "-Xshare:auto", "-jar",
                "/tmp/surefire123/surefirebooter-1.jar", "/tmp/surefire123", "x")).isEqualTo("java -jar surefirebooter-1.jar");
        assertThat(CommandLines.summary("java", "-cp", "a.jar:b.jar", "--add-opens", "java.base/java.lang=ALL-UNNAMED", "org.example.App", "--port", "1"))
                .isEqualTo("java org.example.App");
    }

    @Test void emptyCommandLine_isEmpty() {
        assertThat(CommandLines.summary("")).isEmpty();   // a kernel thread, or a process gone while it was read
    }
}
