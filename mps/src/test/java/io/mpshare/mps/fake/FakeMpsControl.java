package io.mpshare.mps.fake;

import io.mpshare.mps.DomainStatus.Holder;
import io.mpshare.mps.MpsControl;
import io.mpshare.mps.MpsException;
import io.mpshare.mps.MpsException.Reason;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Set;
import java.util.TreeMap;

/**
 * A modelled MPS control daemon behind {@link MpsControl}, as FACTS.md describes the real one:
 * <ul>
 *   <li>servers start lazily on the first client, one per Linux UID at a time, and take the default limits and thread
 *       percentage of that moment; a server's limits change while it runs; an idle server of another UID is stopped for a
 *       new UID, and while a server has clients other UIDs wait;</li>
 *   <li>a client's fatal fault ({@link #fault}) takes every client of that server down at the same instant (their
 *       processes live on until they exit or are killed), and the server then refuses every new client — "Server teardown
 *       in progress. Refusing to accept new client" in its log — until every faulted client process has exited;
 *       another daemon's clients are untouched; the kernel logs Xid 31 naming the server's first client (a victim);</li>
 *   <li>about 130 connections held on the {@code control} socket ({@link #holdConnections}) make it stop answering
 *       (every command times out) until the holder lets go or exits;</li>
 *   <li>a crash ends every server (and so every client's MPS session); a restarted daemon has lost all its settings;</li>
 *   <li>a client sees min(its server's active thread percentage, its own env percentage) of 132 SMs, in even numbers.</li>
 * </ul>
 * Every call is recorded in the words the real control client would be sent ({@code set_default_device_pinned_mem_limit
 * 0 8192M}). Processes live in a {@link FakeProcesses} (its own, or a {@link FakeMpsNode}'s). Thread-safe.
 *
 * <pre>{@code
 * FakeMpsControl mps = new FakeMpsControl();
 * long server = mps.connectClient(4242);   // starts a server with the default limits
 * mps.crash();                              // daemonUp() false; servers and clients gone
 * mps.restart();                            // up again, no settings
 * mps.failNext("set_device_pinned_mem_limit", Reason.SERVER_NOT_FOUND);
 * }</pre>
 */
public final class FakeMpsControl implements MpsControl {
    /** Connections the real daemon accepted on {@code control} before refusing the next (measured: about 130). */
    public static final int CONTROL_CONNECTIONS = 130;
    public static final int SMS = 132;
    public static final String TEARDOWN_LINE = "Server teardown in progress. Refusing to accept new client";
    static final int DEFAULT_UID = 1000;

    /** What a client's connect got. */
    public sealed interface Connection {
        record Served(long server) implements Connection {}

        /** Refused (a server tearing down after a fault): the client's CUDA init fails. */
        record Refused(String reason) implements Connection {}

        /** A server of another UID has clients: this client waits (MPS serves one UID at a time). */
        record Waiting(int otherUid) implements Connection {}
    }

    private static final class Server {
        final long pid;
        final int uid;
        final Map<Integer, Long> limits;
        int threads;
        final Set<Long> clients = new LinkedHashSet<>();
        final Set<Long> faulted = new LinkedHashSet<>();

        Server(long pid, int uid, Map<Integer, Long> limits, int threads) {
            this.pid = pid;
            this.uid = uid;
            this.limits = new TreeMap<>(limits);
            this.threads = threads;
        }

        boolean tearingDown() { return !faulted.isEmpty(); }
    }

    private final FakeProcesses processes;
    private String gpu;
    private final List<String> commands = new ArrayList<>();
    private final Map<Integer, Long> defaultLimits = new TreeMap<>();
    private final Map<Long, Server> servers = new LinkedHashMap<>();
    private final Map<Long, Integer> clientEnvPercent = new HashMap<>();
    private final Map<Long, Integer> held = new LinkedHashMap<>();
    private final Map<String, Queue<Reason>> failures = new HashMap<>();
    private final List<Long> xidVictims = new ArrayList<>();
    private boolean up = true;
    private boolean wholeGib;
    private int defaultThreads = 100;
    private long daemonPid = -1;
    private Path output;
    private Runnable onQuit = () -> {};

    /** A daemon with a process table of its own (the single-daemon tests): its first server is PID 5000. */
    public FakeMpsControl() { this(new FakeProcesses(5000), null); }

    /** A daemon on a node's process table, serving GPU {@code gpu} (its UUID, or null). */
    public FakeMpsControl(FakeProcesses processes, String gpu) {
        this.processes = processes;
        this.gpu = gpu;
        processes.onExit(this::exited);
    }

    public FakeProcesses processes() { return processes; }

    public synchronized String gpu() { return gpu; }

    // ---- driving the fake ----

    /** A client process (UID 1000 unless the process table says otherwise) connects; returns its server's PID, fails if not served. */
    public long connectClient(long clientPid) {
        Connection c = connect(clientPid, 100);
        if (c instanceof Connection.Served s) return s.server();
        throw new IllegalStateException("client " + clientPid + " not served: " + c);
    }

    /**
     * A client process connects asking {@code envPercent} of the SMs ({@code CUDA_MPS_ACTIVE_THREAD_PERCENTAGE}); it is
     * created in the process table first if it is not there (as UID 1000). MPS serves it, refuses it, or makes it wait.
     */
    public Connection connect(long clientPid, int envPercent) {
        if (!processes.exists(clientPid)) processes.spawnAt(clientPid, 1, DEFAULT_UID, "client " + clientPid);
        int uid = processes.uid(clientPid).orElse(DEFAULT_UID);
        List<Long> ended = new ArrayList<>();
        Connection answer;
        synchronized (this) {
            requireUp("connect");
            for (Server o : servers.values()) if (o.uid != uid && !o.clients.isEmpty()) return new Connection.Waiting(o.uid);
            Server s = null;
            for (Server o : List.copyOf(servers.values())) {
                if (o.uid == uid) s = o;
                else { servers.remove(o.pid); ended.add(o.pid); } // an idle server of another UID is stopped
            }
            if (s != null && s.tearingDown()) {
                log("Server " + s.pid, TEARDOWN_LINE);
                answer = new Connection.Refused(TEARDOWN_LINE);
            } else {
                if (s == null) s = startServer(uid);
                s.clients.add(clientPid);
                clientEnvPercent.put(clientPid, envPercent);
                log("Server " + s.pid, "New client " + clientPid + " connected");
                answer = new Connection.Served(s.pid);
            }
        }
        ended.forEach(processes::exit);
        return answer;
    }

    public synchronized void disconnectClient(long clientPid) {
        servers.values().forEach(s -> s.clients.remove(clientPid));
    }

    /**
     * {@code clientPid}'s kernel writes to an illegal address: every client of its server is faulted at the same instant
     * and the server refuses new clients until all of them have exited. Returns the faulted clients. The kernel's Xid 31
     * names the server's first client ({@link #xidVictims}).
     */
    public synchronized List<Long> fault(long clientPid) {
        Server s = servers.values().stream().filter(o -> o.clients.contains(clientPid)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("client " + clientPid + " is not a client of this daemon"));
        s.faulted.addAll(s.clients);
        xidVictims.add(s.clients.iterator().next());
        return List.copyOf(s.faulted);
    }

    /** The PIDs the kernel's Xid lines named, one per fault: the faulted server's first client, not the culprit. */
    public synchronized List<Long> xidVictims() { return List.copyOf(xidVictims); }

    /** Every client this daemon's servers serve now. */
    public synchronized Set<Long> processesServed() {
        Set<Long> out = new LinkedHashSet<>();
        servers.values().forEach(s -> out.addAll(s.clients));
        return out;
    }

    /** Whether {@code server} refuses new clients after a fault. */
    public synchronized boolean tearingDown(long server) { Server s = servers.get(server); return s != null && s.tearingDown(); }

    /** The SMs client {@code pid} sees: its server's thread percentage, lowered by its own env, of 132, in even numbers. */
    public synchronized int smsSeen(long pid) {
        Server s = servers.values().stream().filter(o -> o.clients.contains(pid)).findFirst().orElseThrow();
        int percent = Math.min(s.threads, clientEnvPercent.getOrDefault(pid, 100));
        return (int) (SMS * percent / 100.0 / 2) * 2;
    }

    /** Process {@code pid} holds {@code n} more connections on the {@code control} socket; from 130 on the daemon stops answering. */
    public synchronized void holdConnections(long pid, int n) { held.merge(pid, n, Integer::sum); }

    /** {@code pid} closes its connections. */
    public synchronized void release(long pid) { held.remove(pid); }

    /** Who holds connections on {@code control} now, most first (the supervisor's holder finder over this fake). */
    public synchronized List<Holder> holders() {
        return held.entrySet().stream().sorted(Map.Entry.<Long, Integer>comparingByValue().reversed())
                .map(e -> new Holder(e.getKey(), processes.uid(e.getKey()).orElse(-1), e.getValue(), processes.command(e.getKey()).orElse("")))
                .toList();
    }

    /** The MPS server dies: its clients' sessions with it. */
    public void killServer(long serverPid) {
        synchronized (this) {
            servers.remove(serverPid);
        }
        processes.exit(serverPid);
    }

    /** The control daemon dies (SIGKILL): servers and clients' sessions gone, nothing answers. */
    public void crash() {
        List<Long> ended;
        synchronized (this) {
            up = false;
            ended = List.copyOf(servers.keySet());
            servers.clear();
        }
        ended.forEach(processes::exit);
    }

    /** A fresh daemon answers on the pipe: no servers, no settings. */
    public void restart() {
        List<Long> ended;
        synchronized (this) {
            up = true;
            ended = List.copyOf(servers.keySet());
            servers.clear();
            defaultLimits.clear();
            defaultThreads = 100;
            held.clear();
        }
        ended.forEach(processes::exit);
    }

    /** The daemon process the launcher started (its servers are its children), and where it writes its log (or null). */
    public synchronized void attach(long daemonPid, Path output) {
        this.daemonPid = daemonPid;
        this.output = output;
    }

    /** The GPU a daemon started with {@code CUDA_VISIBLE_DEVICES=<uuid>} serves. */
    public synchronized void serve(String gpuUuid) { this.gpu = gpuUuid; }

    /**
     * From now on, keep pinned-memory limits in whole GiB as the H200's daemon does (driver 580: {@code 2560M} reads
     * back {@code 2G}): a limit that is not whole GiB is stored cut down, and the setter fails NOT_APPLIED, as
     * {@code ProcessMpsControl}'s read-back does against the real daemon.
     */
    public synchronized FakeMpsControl keepingWholeGib() {
        wholeGib = true;
        return this;
    }

    /** The next command starting with {@code commandPrefix} fails with {@code reason}. */
    public synchronized void failNext(String commandPrefix, Reason reason) {
        failures.computeIfAbsent(commandPrefix, k -> new ArrayDeque<>()).add(reason);
    }

    /** Run after {@code quit} has taken the daemon down (the fake launcher ends its daemon there). */
    public synchronized void onQuit(Runnable r) { onQuit = r; }

    /** Every command sent so far, in order. */
    public synchronized List<String> commands() { return List.copyOf(commands); }

    public synchronized void clearCommands() { commands.clear(); }

    public synchronized int defaultActiveThreadPercentage() { return defaultThreads; }

    public synchronized Map<Integer, Long> defaultLimits() { return Map.copyOf(defaultLimits); }

    /** Every running server's limits (server PID → device → MiB). */
    public synchronized Map<Long, Map<Integer, Long>> serverLimits() {
        Map<Long, Map<Integer, Long>> out = new TreeMap<>();
        servers.forEach((pid, s) -> out.put(pid, Map.copyOf(s.limits)));
        return out;
    }

    // ---- MpsControl ----

    @Override public synchronized boolean daemonUp() {
        commands.add("get_server_list");
        return up && !stalled();
    }

    @Override public synchronized List<Long> serverPids() {
        enter("get_server_list");
        return List.copyOf(servers.keySet());
    }

    @Override public synchronized List<Long> clientPids(long serverPid) {
        return List.copyOf(server("get_client_list " + serverPid, serverPid).clients);
    }

    @Override public synchronized void setDefaultPinnedMemLimit(int device, long mib) {
        enter("set_default_device_pinned_mem_limit " + device + " " + mib + "M");
        defaultLimits.put(device, kept(mib));
        readBack("default pinned memory limit of device " + device, mib);
    }

    @Override public synchronized long defaultPinnedMemLimit(int device) {
        enter("get_default_device_pinned_mem_limit " + device);
        return defaultLimits.getOrDefault(device, -1L);
    }

    @Override public synchronized void setServerPinnedMemLimit(long serverPid, int device, long mib) {
        server("set_device_pinned_mem_limit " + serverPid + " " + device + " " + mib + "M", serverPid).limits.put(device, kept(mib));
        readBack("pinned memory limit of server " + serverPid + " device " + device, mib);
    }

    @Override public synchronized long serverPinnedMemLimit(long serverPid, int device) {
        return server("get_device_pinned_mem_limit " + serverPid + " " + device, serverPid).limits.getOrDefault(device, -1L);
    }

    @Override public synchronized void setDefaultActiveThreadPercentage(int percent) {
        enter("set_default_active_thread_percentage " + percent);
        defaultThreads = percent;
    }

    @Override public synchronized void setServerActiveThreadPercentage(long serverPid, int percent) {
        server("set_active_thread_percentage " + serverPid + " " + percent, serverPid).threads = percent;
    }

    @Override public synchronized double serverActiveThreadPercentage(long serverPid) {
        return server("get_active_thread_percentage " + serverPid, serverPid).threads;
    }

    @Override public synchronized String serverStatus(long serverPid) {
        server("get_server_status " + serverPid, serverPid);
        return "ACTIVE"; // what it says during a teardown was not measured
    }

    @Override public synchronized void terminateClient(long serverPid, long clientPid) {
        server("terminate_client " + serverPid + " " + clientPid, serverPid).clients.remove(clientPid);
    }

    @Override public void quit() {
        Runnable hook;
        List<Long> ended;
        synchronized (this) {
            enter("quit");
            up = false;
            ended = List.copyOf(servers.keySet());
            servers.clear();
            hook = onQuit;
        }
        ended.forEach(processes::exit);
        hook.run();
    }

    // ---- the model ----

    private Server startServer(int uid) {
        long pid = processes.spawn(daemonPid, uid, "nvidia-cuda-mps-server");
        Server s = new Server(pid, uid, defaultLimits, defaultThreads);
        servers.put(pid, s);
        log("Control " + daemonPid, "Server " + pid + " started for user " + uid);
        return s;
    }

    /** A process exited: it is no client and holds no connection any more; a teardown ends with its last faulted client. */
    private synchronized void exited(long pid) {
        held.remove(pid);
        clientEnvPercent.remove(pid);
        servers.remove(pid);
        for (Server s : servers.values()) {
            if (s.clients.remove(pid)) log("Server " + s.pid, "Client " + pid + " disconnected");
            s.faulted.remove(pid);
        }
    }

    private boolean stalled() { return held.values().stream().mapToInt(Integer::intValue).sum() >= CONTROL_CONNECTIONS; }

    private void log(String who, String line) {
        if (output == null) return;
        try {
            Files.createDirectories(output.getParent());
            Files.writeString(output, "[" + who + "] " + line + "\n", StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private long kept(long mib) { return wholeGib ? mib / 1024 * 1024 : mib; }

    private void readBack(String what, long mib) {
        if (kept(mib) != mib)
            throw new MpsException(Reason.NOT_APPLIED, what + ": set " + mib + " MiB, read back " + kept(mib) + " MiB (the daemon keeps whole GiB)");
    }

    private Server server(String command, long serverPid) {
        enter(command);
        Server s = servers.get(serverPid);
        if (s == null) throw new MpsException(Reason.SERVER_NOT_FOUND, "'" + command + "': the control daemon answered: Server " + serverPid + " not found");
        return s;
    }

    private void enter(String command) {
        commands.add(command);
        requireUp(command);
        if (stalled()) throw new MpsException(Reason.TIMEOUT, "'" + command + "' got no answer (the control socket's connections are all held)");
        for (Map.Entry<String, Queue<Reason>> e : failures.entrySet()) {
            if (command.startsWith(e.getKey()) && !e.getValue().isEmpty()) {
                throw new MpsException(e.getValue().remove(), "'" + command + "': injected failure");
            }
        }
    }

    private void requireUp(String command) {
        if (!up) throw new MpsException(Reason.DAEMON_DOWN, "'" + command + "': no MPS control daemon answers (Cannot find MPS control daemon process)");
    }
}
