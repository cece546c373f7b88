package io.mpshare.mps.fake;

import io.mpshare.mps.proc.Processes;

import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.LongConsumer;

/**
 * The processes of a modelled node: clients, MPS servers, control daemons and whoever else the test starts. A process
 * lives until it {@link #exit}s or is killed ({@link #kill}: SIGKILL, recorded in {@link #killed}); each exit is told to
 * the listeners (the modelled daemons drop a client that exits, and end a teardown when the last faulted one has).
 * Thread-safe; listeners run outside the lock.
 */
public final class FakeProcesses implements Processes {
    /** One process. */
    public record Proc(long pid, long parent, int uid, String command, Instant startedAt) {}

    private final Map<Long, Proc> live = new LinkedHashMap<>();
    private final List<Long> killed = new ArrayList<>();
    private final List<LongConsumer> onExit = new ArrayList<>();
    private long nextPid;
    private long started;

    /** PIDs from 20000 on. */
    public FakeProcesses() { this(20000); }

    /** PIDs from {@code firstPid} on (a single daemon's tests have always seen its first server as PID 5000). */
    public FakeProcesses(long firstPid) { this.nextPid = firstPid; }

    /** A new process with a fresh PID. */
    public synchronized long spawn(long parent, int uid, String command) {
        while (live.containsKey(nextPid)) nextPid++;
        long pid = nextPid++;
        spawnAt(pid, parent, uid, command);
        return pid;
    }

    /** A process with the given PID (a test's own numbering); replaces nothing that lives. */
    public synchronized void spawnAt(long pid, long parent, int uid, String command) {
        if (live.containsKey(pid)) throw new IllegalStateException("PID " + pid + " already runs");
        live.put(pid, new Proc(pid, parent, uid, command, Instant.EPOCH.plusSeconds(++started)));
    }

    public synchronized boolean exists(long pid) { return live.containsKey(pid); }

    /** The process ends by itself. */
    public void exit(long pid) {
        List<LongConsumer> listeners;
        synchronized (this) {
            if (live.remove(pid) == null) return;
            listeners = List.copyOf(onExit);
        }
        listeners.forEach(l -> l.accept(pid));
    }

    /** Every SIGKILL sent through {@link #kill}, in order. */
    public synchronized List<Long> killed() { return List.copyOf(killed); }

    public synchronized void onExit(LongConsumer listener) { onExit.add(listener); }

    @Override public synchronized boolean alive(long pid) { return live.containsKey(pid); }

    @Override public synchronized List<Long> liveChildren(long pid) {
        return live.values().stream().filter(p -> p.parent() == pid).map(Proc::pid).toList();
    }

    @Override public synchronized Optional<Integer> uid(long pid) { return Optional.ofNullable(live.get(pid)).map(Proc::uid); }

    @Override public synchronized Optional<String> command(long pid) { return Optional.ofNullable(live.get(pid)).map(Proc::command); }

    @Override public synchronized Optional<Instant> startedAt(long pid) { return Optional.ofNullable(live.get(pid)).map(Proc::startedAt); }

    @Override public boolean kill(long pid) {
        synchronized (this) {
            if (!live.containsKey(pid)) return false;
            killed.add(pid);
        }
        exit(pid);
        return true;
    }
}
