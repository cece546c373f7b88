package io.mpshare.mps.proc;

import io.mpshare.mps.DomainStatus.Holder;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Who holds connections to a control daemon's {@code control} socket, from a {@code /proc} tree: the daemon's
 * {@code net/unix} says how many connections the socket accepted and of which type (seqpacket); each process's
 * {@code fd/} links ({@code socket:[inode]}) and its own namespace's {@code net/unix} say which of its sockets are
 * connected, unnamed, of that type. Those processes are the holders, most connections first, with their effective UID.
 *
 * <p>Implementation notes. {@code /proc/net/unix} names no peer: the connecting side of a unix socket has no path, and
 * the peer's inode is only given by the {@code sock_diag} netlink interface ({@code ss -xp}). So a holder here is "a
 * process holding connected, unnamed sockets of the control socket's type", which also counts an MPS client's own
 * connections (to the control daemon and to its server): a client shows one or a few, a process that stalls the daemon
 * shows about 130 (the daemon's limit, measured). The list is a lead for a person and for the device plugin's event, not
 * a reason to kill anyone. Network namespaces are read once each ({@code ns/net}), so a holder in a pod's own namespace
 * is found too. Every file may vanish while read (processes exit): such a process is skipped.
 */
public final class ControlSocketHolders implements HolderFinder {
    /** Holders beyond this many are left out (the worst ones are first). */
    static final int MAX_HOLDERS = 10;
    private final Path proc;
    private final Processes processes;

    public ControlSocketHolders(Path proc, Processes processes) {
        this.proc = proc;
        this.processes = processes;
    }

    public static ControlSocketHolders system() { return new ControlSocketHolders(Path.of("/proc"), ProcProcesses.system()); }

    /**
     * The holders of connections to {@code socket}, served by {@code daemonPid}; processes in {@code exclude} (the daemon's
     * servers) are left out. Empty when the daemon's namespace shows no listener at that path or no accepted connection.
     */
    @Override public List<Holder> find(Path socket, long daemonPid, Set<Long> exclude) {
        UnixSockets daemonNs = table(daemonPid);
        if (daemonNs == null) return List.of();
        UnixSockets.Entry listener = daemonNs.listener(socket.toString());
        if (listener == null || daemonNs.accepted(socket.toString()) == 0) return List.of();
        Map<String, UnixSockets> byNamespace = new HashMap<>();
        List<Holder> out = new ArrayList<>();
        for (long pid : pids()) {
            if (pid == daemonPid || exclude.contains(pid)) continue;
            List<Long> inodes = socketInodes(pid);
            if (inodes.isEmpty()) continue;
            String ns = link(proc.resolve(pid + "/ns/net"));
            UnixSockets table = ns == null ? table(pid) : byNamespace.computeIfAbsent(ns, k -> table(pid));
            if (table == null) continue;
            int n = 0;
            for (long inode : inodes) {
                UnixSockets.Entry e = table.byInode(inode);
                if (e != null && e.type() == listener.type() && e.connected() && e.path().isEmpty()) n++;
            }
            if (n > 0) {
                String cmd = processes.command(pid).orElse("");
                out.add(new Holder(pid, processes.uid(pid).orElse(-1), n, cmd.length() > 120 ? cmd.substring(0, 120) : cmd));
            }
        }
        out.sort(Comparator.comparingInt(Holder::connections).reversed().thenComparingLong(Holder::pid));
        return List.copyOf(out.subList(0, Math.min(MAX_HOLDERS, out.size())));
    }

    private List<Long> pids() {
        List<Long> out = new ArrayList<>();
        try (DirectoryStream<Path> dirs = Files.newDirectoryStream(proc, p -> ProcProcesses.isPid(p.getFileName().toString()))) {
            for (Path d : dirs) out.add(Long.parseLong(d.getFileName().toString()));
        } catch (IOException e) {
            return List.of();
        }
        out.sort(null);
        return out;
    }

    /** The inodes of {@code pid}'s sockets ({@code fd/N -> socket:[inode]}). */
    private List<Long> socketInodes(long pid) {
        List<Long> out = new ArrayList<>();
        try (DirectoryStream<Path> fds = Files.newDirectoryStream(proc.resolve(pid + "/fd"))) {
            for (Path fd : fds) {
                String target = link(fd);
                if (target != null && target.startsWith("socket:[") && target.endsWith("]")) {
                    try {
                        out.add(Long.parseLong(target.substring(8, target.length() - 1)));
                    } catch (NumberFormatException e) {
                        // not a socket link
                    }
                }
            }
        } catch (IOException e) {
            return List.of(); // gone, or not ours to read
        }
        return out;
    }

    private UnixSockets table(long pid) {
        try {
            return UnixSockets.parse(Files.readString(proc.resolve(pid + "/net/unix"), StandardCharsets.UTF_8));
        } catch (IOException e) {
            return null;
        }
    }

    private static String link(Path p) {
        try {
            return Files.readSymbolicLink(p).toString();
        } catch (IOException | UnsupportedOperationException e) {
            return null;
        }
    }
}
