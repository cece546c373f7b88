package io.mpshare.e2e.node;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Starts {@code mpshare <subcommand>} as its own JVM from the shaded {@code cli/target/mpshare.jar}, the way the
 * DaemonSets run it. Small heaps and C1 only: the test machine has 2 cores.
 */
final class Mpshare {
    private final Path jar;

    Mpshare(Path repo) {
        this.jar = repo.resolve("cli/target/mpshare.jar");
        if (!Files.isRegularFile(jar))
            throw new IllegalStateException("no " + jar + ": build it first (mvn -B -ntp -pl cli -am package -DskipTests)");
    }

    Daemon start(String name, List<String> args, Map<String, String> env, Path log) throws IOException {
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx192m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "--enable-native-access=ALL-UNNAMED", "-jar", jar.toString()));
        cmd.addAll(args);
        return Daemon.start(name, cmd, env, log);
    }
}
