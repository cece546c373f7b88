package io.mpshare.mps.fake;

import io.mpshare.mps.MpsControl;
import io.mpshare.mps.MpsException;
import io.mpshare.mps.MpsException.Reason;

import java.util.ArrayList;
import java.util.ArrayDeque;
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
 * servers start lazily on the first client and take the default limits then; a server's limit can be
 * changed while it runs; a crash ends every server (and so every client) and a restarted daemon has
 * lost all its settings. Every call is recorded in the words the real control client would be sent
 * ({@code set_default_device_pinned_mem_limit 0 8192M}). Thread-safe.
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
    private static final class Server {
        final Map<Integer, Long> limits;
        final Set<Long> clients = new LinkedHashSet<>();

        Server(Map<Integer, Long> limits) { this.limits = new TreeMap<>(limits); }
    }

    private final List<String> commands = new ArrayList<>();
    private final Map<Integer, Long> defaultLimits = new TreeMap<>();
    private final Map<Long, Server> servers = new LinkedHashMap<>();
    private final Map<String, Queue<Reason>> failures = new HashMap<>();
    private boolean up = true;
    private boolean wholeGib;
    private int defaultThreads = 100;
    private long nextServerPid = 5000;
    private Runnable onQuit = () -> {};

    // ---- driving the fake ----

    /** A client connects: joins the running server, or starts one with the current default limits. Returns the server's PID. */
    public synchronized long connectClient(long clientPid) {
        requireUp("connect");
        Server s = servers.isEmpty() ? startServer() : servers.values().iterator().next();
        s.clients.add(clientPid);
        return servers.entrySet().stream().filter(e -> e.getValue() == s).findFirst().orElseThrow().getKey();
    }

    public synchronized void disconnectClient(long clientPid) {
        servers.values().forEach(s -> s.clients.remove(clientPid));
    }

    /** The MPS server dies: its clients with it. */
    public synchronized void killServer(long serverPid) { servers.remove(serverPid); }

    /** The control daemon dies (SIGKILL): servers and clients gone, nothing answers. */
    public synchronized void crash() {
        up = false;
        servers.clear();
    }

    /** A fresh daemon answers on the pipe: no servers, no settings. */
    public synchronized void restart() {
        up = true;
        servers.clear();
        defaultLimits.clear();
        defaultThreads = 100;
    }

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

    // ---- MpsControl ----

    @Override public synchronized boolean daemonUp() {
        commands.add("get_server_list");
        return up;
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

    @Override public synchronized void terminateClient(long serverPid, long clientPid) {
        server("terminate_client " + serverPid + " " + clientPid, serverPid).clients.remove(clientPid);
    }

    @Override public void quit() {
        Runnable hook;
        synchronized (this) {
            enter("quit");
            up = false;
            servers.clear();
            hook = onQuit;
        }
        hook.run();
    }

    private long kept(long mib) { return wholeGib ? mib / 1024 * 1024 : mib; }

    private void readBack(String what, long mib) {
        if (kept(mib) != mib)
            throw new MpsException(Reason.NOT_APPLIED, what + ": set " + mib + " MiB, read back " + kept(mib) + " MiB (the daemon keeps whole GiB)");
    }

    /** Every running server's limits (server PID → device → MiB). */
    public synchronized Map<Long, Map<Integer, Long>> serverLimits() {
        Map<Long, Map<Integer, Long>> out = new TreeMap<>();
        servers.forEach((pid, s) -> out.put(pid, Map.copyOf(s.limits)));
        return out;
    }

    private Server startServer() {
        long pid = nextServerPid++;
        Server s = new Server(defaultLimits);
        servers.put(pid, s);
        return s;
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
