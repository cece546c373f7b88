package io.mpshare.mps.fake;

import io.mpshare.mps.DaemonLauncher;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * A {@link DaemonLauncher} that starts nothing: each start "restarts" a {@link FakeMpsControl} and
 * returns a daemon the test can make exit ({@link #exitCurrent}). {@code quit}, SIGTERM and SIGKILL
 * end the fake daemon as they would the real one. Thread-safe.
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
        current = new FakeDaemon(nextPid++);
        return current;
    }

    /** One fake daemon process. */
    public final class FakeDaemon implements Daemon {
        private final long pid;
        private final CompletableFuture<Integer> exit = new CompletableFuture<>();

        FakeDaemon(long pid) { this.pid = pid; }

        void exit(int code) {
            synchronized (FakeDaemonLauncher.this) {
                if (exit.isDone()) return;
                control.crash();
            }
            exit.complete(code);
        }

        @Override public long pid() { return pid; }

        @Override public boolean isAlive() { return !exit.isDone(); }

        @Override public CompletableFuture<Integer> onExit() { return exit; }

        @Override public void terminate() { exit(143); }

        @Override public void kill() { exit(137); }
    }
}
