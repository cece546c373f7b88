package io.mpshare.mps;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * {@code mpshare mps-control} in a JVM of its own, for {@link SupervisorRestartIT}: colour blue under {@code args[0]},
 * the control binary {@code args[1]}, health every 200 ms, no Xid events. Runs until killed.
 */
public final class SupervisorProcessMain {
    private SupervisorProcessMain() {}

    public static void main(String[] args) throws Exception {
        Path run = Path.of(args[0]);
        SupervisorConfig sc = new SupervisorConfig(Colour.BLUE, run, "", OptionalInt.empty(), Map.of(),
                new Backoff(Duration.ofMillis(100), Duration.ofSeconds(1)), Duration.ofMinutes(5),
                Duration.ofMillis(50), 100, Duration.ofMillis(200), 3, Duration.ofSeconds(2));
        SupervisorNode node = SupervisorNode.start(new SupervisorNode.Config(sc, Optional.of(Path.of(args[1])), Colour.BLUE.supervisorSocket(run),
                Optional.empty(), Duration.ofSeconds(5), false, Duration.ofSeconds(1), false), System.err);
        System.out.println("serving " + node.socket());
        Thread.sleep(Long.MAX_VALUE); // until SIGKILL: what the test does to it
    }
}
