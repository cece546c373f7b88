package io.mpshare.deviceplugin.health;

import org.junit.jupiter.api.Test;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 15 item 4 with a real zombie: a child that exits under a parent that never reaps it (what a daemon killed under
 * a hung supervisor is). {@code ProcessHandle.isAlive()} says alive; {@link ProcStatLiveness} says dead.
 */
class ZombieIT {
    @Test void zombie_isDead_whereProcessHandleSaysAlive() throws Exception {
        // the shell starts a short child, prints its PID, then becomes `sleep 30`, which never waits for it
        Process parent = new ProcessBuilder("sh", "-c", "sleep 0.05 & echo $!; exec sleep 30").redirectErrorStream(true).start();
        try {
            long child = Long.parseLong(new BufferedReader(new InputStreamReader(parent.getInputStream(), StandardCharsets.UTF_8)).readLine().strip());
            ProcStatLiveness liveness = ProcStatLiveness.host();
            long end = System.nanoTime() + Duration.ofSeconds(10).toNanos(); // poll for the state, as awaitility would
            while (liveness.alive(child) && System.nanoTime() < end) java.util.concurrent.locks.LockSupport.parkNanos(5_000_000);
            assertThat(liveness.alive(child)).as("the exited, unreaped child").isFalse();
            assertThat(ProcessHandle.of(child).map(ProcessHandle::isAlive)).contains(true); // the JDK counts the zombie
            assertThat(ProcStatLiveness.state(java.nio.file.Files.readString(java.nio.file.Path.of("/proc/" + child + "/stat")))).isEqualTo('Z');
            assertThat(liveness.alive(parent.pid())).isTrue();
        } finally {
            parent.destroyForcibly();
        }
    }
}
