package io.mpshare.mps.fake;

import io.mpshare.mps.DaemonLauncher;
import io.mpshare.mps.proc.HolderFinder;
import io.mpshare.mps.proc.Processes;

import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * A {@link DaemonLauncher} for one modelled daemon: each start "restarts" a {@link FakeMpsControl} and returns a daemon
 * process (in the control's {@link FakeProcesses}) the test can make exit ({@link #exitCurrent}). {@code quit}, SIGTERM
 * and SIGKILL end the fake daemon as they would the real one; its servers are its children. Thread-safe.
 */
public final class FakeDaemonLauncher implements DaemonLauncher {
    private final FakeMpsControl control;
    private final List<Spec> starts = new ArrayList<>();
    private int failStarts;
    private boolean answerAfterStart = true;
    private long nextPid = 100;
    private FakeDaemon current;

    public FakeDaemonLauncher(FakeMpsControl control) {
        this.control = control;
        control.onQuit(() -> exitCurrent(0));
    }

    /** The next {@code n} starts fail with an IOException. */
    public synchronized FakeDaemonLauncher failStarts(int n) { failStarts = n; return this; }

    /** When false, started daemons never answer on the pipe (a daemon stuck at start). */
    public synchronized FakeDaemonLauncher answerAfterStart(boolean answer) { answerAfterStart = answer; return this; }

    public synchronized List<Spec> starts() { return List.copyOf(starts); }

    public synchronized FakeDaemon current() { return current; }

    /** The running daemon exits with {@code code}; the control daemon stops answering. */
    public void exitCurrent(int code) {
        FakeDaemon d;
        synchronized (this) {
            d = current;
        }
        if (d != null) d.exit(code);
    }

    @Override public synchronized Daemon start(Spec spec) throws IOException {
        starts.add(spec);
        if (failStarts > 0) {
            failStarts--;
            throw new IOException("injected start failure");
        }
        if (answerAfterStart) control.restart(); else control.crash();
        while (control.processes().exists(nextPid)) nextPid++;
        long pid = nextPid++; // daemons from PID 100, as these tests have always seen them; servers from 5000
        control.processes().spawnAt(pid, 1, 0, "nvidia-cuda-mps-control -f");
        control.attach(pid, spec.output().orElse(null));
        current = new FakeDaemon(pid, control);
        return current;
    }

    @Override public synchronized Optional<Daemon> adopt(long pid, Instant startedAt) {
        return current != null && current.pid() == pid && current.isAlive() && current.startedAt().orElseThrow().equals(startedAt)
                ? Optional.of(current) : Optional.empty();
    }

    @Override public Processes processes() { return control.processes(); }

    @Override public HolderFinder holders() { return (socket, daemonPid, exclude) -> control.holders(); }

    /** One fake daemon process: its exit takes its control daemon down (servers and all). */
    public static final class FakeDaemon implements Daemon {
        private final long pid;
        private final FakeMpsControl control;
        private final Instant startedAt;
        private final CompletableFuture<Integer> exit = new CompletableFuture<>();

        public FakeDaemon(long pid, FakeMpsControl control) {
            this.pid = pid;
            this.control = control;
            this.startedAt = control.processes().startedAt(pid).orElseThrow();
        }

        public void exit(int code) {
            synchronized (this) {
                if (exit.isDone()) return;
            }
            control.crash();
            control.processes().exit(pid);
            exit.complete(code);
        }

        @Override public long pid() { return pid; }

        @Override public boolean isAlive() { return !exit.isDone(); }

        @Override public CompletableFuture<Integer> onExit() { return exit; }

        @Override public void terminate() { exit(143); }

        @Override public void kill() { exit(137); }

        @Override public Optional<Instant> startedAt() { return Optional.of(startedAt); }
    }
}
