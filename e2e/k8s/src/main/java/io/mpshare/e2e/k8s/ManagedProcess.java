package io.mpshare.e2e.k8s;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * One child process of the harness (etcd, an apiserver, a scheduler, an extender JVM): started with its output in
 * {@code logs/NAME.log}, stopped with SIGTERM then SIGKILL, or killed at once ({@link #kill9()}) to model a crash.
 * Stopping also ends the process's descendants.
 */
public final class ManagedProcess implements AutoCloseable {
    private final String name;
    private final Process process;
    private final Path log;

    private ManagedProcess(String name, Process process, Path log) {
        this.name = name;
        this.process = process;
        this.log = log;
    }

    public static ManagedProcess start(String name, List<String> command, Map<String, String> env, Path logDir) {
        try {
            Files.createDirectories(logDir);
            Path log = logDir.resolve(name + ".log");
            var pb = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
            pb.environment().putAll(env);
            Files.writeString(log, "# " + String.join(" ", command) + "\n", StandardOpenOption.CREATE, StandardOpenOption.APPEND);
            return new ManagedProcess(name, pb.start(), log);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start " + name + " (" + command.getFirst() + "): " + e.getMessage(), e);
        }
    }

    public String name() { return name; }
    public long pid() { return process.pid(); }
    public Path log() { return log; }
    public boolean alive() { return process.isAlive(); }

    /** The last {@code lines} lines of the log, for failure messages. */
    public String tail(int lines) {
        try {
            List<String> all = Files.readAllLines(log);
            return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
        } catch (IOException e) {
            return "(no log: " + e.getMessage() + ")";
        }
    }

    /** SIGKILL now, as a crash would; waits until it is gone. */
    public void kill9() {
        process.descendants().forEach(ProcessHandle::destroyForcibly);
        process.destroyForcibly();
        waitGone(Duration.ofSeconds(10));
    }

    /** SIGTERM, then SIGKILL after {@code grace}. */
    public void stop(Duration grace) {
        if (!process.isAlive()) return;
        List<ProcessHandle> kids = process.descendants().toList();
        process.destroy();
        if (!waitGone(grace)) process.destroyForcibly();
        waitGone(Duration.ofSeconds(10));
        kids.forEach(ProcessHandle::destroyForcibly);
    }

    private boolean waitGone(Duration d) {
        try {
            return process.waitFor(d.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    @Override public void close() { stop(Duration.ofSeconds(5)); }
}
