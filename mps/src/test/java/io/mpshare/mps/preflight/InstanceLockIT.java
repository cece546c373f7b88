package io.mpshare.mps.preflight;

import io.mpshare.mps.preflight.InstanceLock.Acquired;
import io.mpshare.mps.preflight.InstanceLock.Held;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;

import static org.assertj.core.api.Assertions.assertThat;

/** {@link InstanceLock} between real processes: a second JVM (the source launcher over this classpath) takes or probes the lock. */
@Timeout(180)
class InstanceLockIT {
    @TempDir Path tmp;
    final List<Process> children = new ArrayList<>();

    @AfterEach void stopChildren() {
        children.forEach(Process::destroyForcibly);
    }

    /** Starts a JVM that tries the lock: prints "locked" and holds it until its stdin closes, or prints "held PID" and exits. */
    private Child child(Path lock, boolean hold) throws IOException {
        Path src = tmp.resolve("TryLock.java");
        if (!Files.exists(src)) Files.writeString(src, """
                import io.mpshare.mps.preflight.InstanceLock;
                import java.nio.file.Path;
                public class TryLock {
                    public static void main(String[] a) throws Exception {
                        switch (InstanceLock.tryAcquire(Path.of(a[0]))) {
                            case InstanceLock.Acquired ok -> {
                                System.out.println("locked");
                                System.out.flush();
                                if (a[1].equals("hold")) System.in.read();
                                ok.lock().close();
                            }
                            case InstanceLock.Held h -> System.out.println("held " + h.pid().orElse(-1));
                        }
                    }
                }
                """);
        String java = ProcessHandle.current().info().command().orElse("java");
        Process p = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"), src.toString(), lock.toString(), hold ? "hold" : "probe")
                .redirectError(ProcessBuilder.Redirect.INHERIT).start();
        children.add(p);
        return new Child(p, new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8)).readLine());
    }

    record Child(Process process, String said) {}

    @Test void anotherProcessHolds_heldWithItsPid_andFreeOnceItIsKilled() throws Exception {
        Path lock = tmp.resolve("run/agent.lock");
        Child holder = child(lock, true);
        assertThat(holder.said()).isEqualTo("locked");

        assertThat(InstanceLock.tryAcquire(lock)).isEqualTo(new Held(lock, OptionalLong.of(holder.process().pid())));
        assertThat(InstanceLock.holder(lock)).contains(new Held(lock, OptionalLong.of(holder.process().pid())));

        holder.process().destroyForcibly().waitFor();   // a crash: the kernel drops the lock, the file stays
        assertThat(lock).exists();
        assertThat(InstanceLock.holder(lock)).isEmpty();
        try (InstanceLock mine = ((Acquired) InstanceLock.tryAcquire(lock)).lock()) {
            assertThat(Files.readString(lock).strip()).isEqualTo(Long.toString(ProcessHandle.current().pid()));
        }
    }

    @Test void secondAttemptInThisProcess_isHeld_andTheFirstStaysHeldForOthers() throws Exception {
        Path lock = tmp.resolve("agent.lock");
        InstanceLock first = ((Acquired) InstanceLock.tryAcquire(lock)).lock();
        try {
            assertThat(InstanceLock.tryAcquire(lock)).isEqualTo(new Held(lock, OptionalLong.of(ProcessHandle.current().pid())));
            assertThat(InstanceLock.holder(lock)).contains(new Held(lock, OptionalLong.of(ProcessHandle.current().pid())));
            // the second attempt opened no descriptor of its own, so closing it could not drop the first one's lock
            assertThat(child(lock, false).said()).isEqualTo("held " + ProcessHandle.current().pid());
        } finally {
            first.close();
        }
        assertThat(child(lock, false).said()).isEqualTo("locked");
    }
}
