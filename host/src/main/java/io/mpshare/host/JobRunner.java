package io.mpshare.host;

import com.fasterxml.jackson.databind.JsonNode;
import io.mpshare.host.api.HostClient;

import java.io.IOException;
import java.io.PrintStream;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The client side of {@code mpshare run}: get an allocation (waiting if asked), run the command as an MPS client
 * with the env the host answered (stdin/stdout/stderr inherited), tell the host its PID, free the allocation when
 * it ends, and return its exit code. If this process is killed the host still frees the job when the command ends,
 * since it watches the command's PID.
 *
 * <p>Exit codes of its own: {@link #REFUSED} when the host refused (the message says why), {@link #CANNOT_START}
 * when the command could not be started; otherwise the command's own code (128 + signal when it was killed).
 */
public final class JobRunner {
    public static final int REFUSED = 125;
    public static final int CANNOT_START = 127;

    private final HostClient client;
    private final PrintStream err;
    private final Duration poll;

    public JobRunner(HostClient client, PrintStream err, Duration poll) {
        this.client = client;
        this.err = err;
        this.poll = poll;
    }

    /** @param wait how long to wait for room or for the daemon; {@code Duration.ZERO} = not at all */
    public int run(long memMib, int core, int gpuCount, Duration wait, List<String> command) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + (wait.compareTo(Duration.ofDays(3650)) > 0 ? Duration.ofDays(3650) : wait).toNanos();
        long me = ProcessHandle.current().pid();
        String user = System.getProperty("user.name", "");
        JsonNode a;
        String said = null;
        while (true) {
            a = client.allocate(memMib, core, gpuCount, me, user, command);
            if (a.path("ok").asBoolean()) break;
            String msg = a.path("message").asText();
            if (!a.path("retry").asBoolean() || System.nanoTime() >= deadline) {
                err.println("mpshare run: " + msg);
                return REFUSED;
            }
            if (!msg.equals(said)) { err.println("mpshare run: waiting: " + msg); said = msg; }
            Thread.sleep(poll.toMillis()); // waiting for room: polling the host is the protocol
        }
        String job = a.path("job").asText();
        Map<String, String> env = HostClient.env(a);
        ProcessBuilder pb = new ProcessBuilder(command).inheritIO();
        pb.environment().putAll(env);
        Process child;
        try {
            child = pb.start();
        } catch (IOException e) {
            client.release(job);
            err.println("mpshare run: cannot start " + command.getFirst() + ": " + e.getMessage());
            return CANNOT_START;
        }
        Thread hook = new Thread(() -> stop(child, job), "mpshare-run-stop");
        Runtime.getRuntime().addShutdownHook(hook);
        try {
            client.started(job, child.pid());
        } catch (IOException e) {
            err.println("mpshare run: could not tell the host the command's PID (" + e.getMessage() + "); it frees the job when this process ends");
        }
        int code = child.waitFor();
        try {
            client.release(job);
        } catch (IOException e) {
            err.println("mpshare run: could not free the job (" + e.getMessage() + "); the host frees it on its own");
        }
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException e) {
            // already shutting down
        }
        return code;
    }

    /** SIGTERM/SIGINT of this process: pass the end on to the command, wait for it briefly, free the job. */
    private void stop(Process child, String job) {
        if (child.isAlive()) {
            child.destroy();
            try {
                if (!child.waitFor(10, TimeUnit.SECONDS)) child.destroyForcibly();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        try {
            client.release(job);
        } catch (IOException e) {
            // the host frees it when it sees the command gone
        }
    }
}
