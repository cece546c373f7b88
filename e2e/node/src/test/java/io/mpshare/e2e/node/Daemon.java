package io.mpshare.e2e.node;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A long-running child process of the test (containerd, kubelet, an {@code mpshare} subcommand) with its output in
 * a log file. {@link #close} sends SIGTERM, waits, then SIGKILLs it and its descendants: nothing it started outlives it.
 */
final class Daemon implements AutoCloseable {
    private final String name;
    private final Process process;
    private final Path log;

    private Daemon(String name, Process process, Path log) {
        this.name = name;
        this.process = process;
        this.log = log;
    }

    static Daemon start(String name, List<String> command, Map<String, String> env, Path log) throws IOException {
        Files.createDirectories(log.getParent());
        var pb = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
        pb.environment().putAll(env);
        return new Daemon(name, pb.start(), log);
    }

    long pid() { return process.pid(); }

    Path log() { return log; }

    boolean alive() { return process.isAlive(); }

    /** The log so far (for a failure message: its last lines). */
    String tail(int lines) {
        try {
            List<String> all = Files.readAllLines(log);
            return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
        } catch (IOException e) {
            return "(no log: " + e.getMessage() + ")";
        }
    }

    /** SIGSTOP / SIGCONT: a hung process, without killing it. */
    void signal(String sig) throws IOException, InterruptedException {
        Host.run(List.of("kill", "-" + sig, Long.toString(process.pid())), 10);
    }

    /** SIGKILL now (a crash), descendants too. */
    void kill() throws InterruptedException {
        process.descendants().forEach(ProcessHandle::destroyForcibly);
        process.destroyForcibly();
        process.waitFor(10, TimeUnit.SECONDS);
    }

    @Override public void close() throws InterruptedException {
        if (!process.isAlive()) return;
        var descendants = process.descendants().toList();
        process.destroy();
        if (!process.waitFor(15, TimeUnit.SECONDS)) {
            System.err.println("e2e/node: " + name + " ignored SIGTERM for 15 s; killing it");
            process.destroyForcibly();
            process.waitFor(10, TimeUnit.SECONDS);
        }
        descendants.forEach(ProcessHandle::destroyForcibly);
    }

    @Override public String toString() { return name + "(pid " + process.pid() + ")"; }
}
