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

    /** Copies {@code $MPSHARE_JAR} or the clone's {@code cli/target/mpshare.jar} into {@code dir}: a rebuild meanwhile does not touch the run. */
    Mpshare(Path repo, Path dir) throws IOException {
        String env = System.getenv("MPSHARE_JAR");
        Path built = env != null && !env.isBlank() ? Path.of(env) : repo.resolve("cli/target/mpshare.jar");
        if (!Files.isRegularFile(built))
            throw new IllegalStateException("no " + built + ": build it first (mvn -B -ntp -pl cli -am package -DskipTests), or set MPSHARE_JAR");
        Files.createDirectories(dir);
        this.jar = Files.copy(built, dir.resolve("mpshare.jar"), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
    }

    Daemon start(String name, List<String> args, Map<String, String> env, Path log) throws IOException {
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx192m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "--enable-native-access=ALL-UNNAMED", "-jar", jar.toString()));
        cmd.addAll(args);
        return Daemon.start(name, cmd, env, log);
    }
}
