package io.mpshare.mps.preflight;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Which process listens on a unix socket or a TCP port, read from {@code /proc} as {@code ss -lxp} and
 * {@code ss -ltp} do: the listening socket's inode from {@code net/unix} or {@code net/tcp(6)}, then the process
 * with a {@code socket:[inode]} file descriptor.
 *
 * <p>Implementation notes. {@code net/*} lists the sockets of this process's network namespace only, and the
 * descriptors of another user's processes can be read only as root: what cannot be seen is empty, never a guess. A
 * unix socket is listed under the path it was bound with, which may be relative to the binder's working directory;
 * such a path is resolved against {@code /proc/PID/cwd} once the PID is known. Only called when something is
 * already known to be in use, so the one walk over every process's descriptors is rare.
 */
public final class ProcTable {
    private static final int SO_ACCEPTCON = 0x10000;
    private static final String TCP_LISTEN = "0A";

    private final Path proc;

    /** @param proc the {@code /proc} to read ({@link #host()} for the real one; tests give a folder laid out like it) */
    public ProcTable(Path proc) { this.proc = proc; }

    public static ProcTable host() { return new ProcTable(Path.of("/proc")); }

    /** The process listening on the unix socket at {@code socket}, when it can be seen. */
    public Optional<Holder> unixListener(Path socket) {
        Map<Long, String> listening = new HashMap<>();
        String name = socket.getFileName().toString();
        for (String line : lines(proc.resolve("net/unix"))) {
            String[] f = line.strip().split("\\s+", 8);
            if (f.length < 8 || !f[0].endsWith(":")) continue;
            if ((hex(f[3]) & SO_ACCEPTCON) == 0 || !f[7].endsWith(name)) continue;
            listening.put(Long.parseLong(f[6]), f[7]);
        }
        for (Map.Entry<Long, Long> e : owners(listening.keySet()).entrySet()) {
            Path bound = Path.of(listening.get(e.getKey()));
            if (!bound.isAbsolute()) {
                Optional<Path> cwd = link(proc.resolve(e.getValue() + "/cwd"));
                if (cwd.isEmpty()) continue;
                bound = cwd.get().resolve(bound);
            }
            if (sameFile(bound, socket)) return Optional.of(holder(e.getValue()));
        }
        return Optional.empty();
    }

    /** The process listening on TCP {@code port} (any address, IPv4 or IPv6), when it can be seen. */
    public Optional<Holder> tcpListener(int port) {
        Set<Long> inodes = new HashSet<>();
        for (String table : List.of("net/tcp", "net/tcp6"))
            for (String line : lines(proc.resolve(table))) {
                String[] f = line.strip().split("\\s+");
                if (f.length < 10 || !f[0].endsWith(":") || !TCP_LISTEN.equals(f[3])) continue;
                String local = f[1];
                if (hex(local.substring(local.lastIndexOf(':') + 1)) == port) inodes.add(Long.parseLong(f[9]));
            }
        return owners(inodes).values().stream().findFirst().map(this::holder);
    }

    /** The process {@code pid} if it exists, with its command line. */
    public Optional<Holder> process(long pid) {
        return pid > 0 && Files.isDirectory(proc.resolve(Long.toString(pid))) ? Optional.of(holder(pid)) : Optional.empty();
    }

    Holder holder(long pid) {
        try {
            byte[] raw = Files.readAllBytes(proc.resolve(pid + "/cmdline"));
            return new Holder(pid, CommandLines.summary(new String(raw, StandardCharsets.UTF_8).split("\0")));
        } catch (IOException e) {
            return new Holder(pid, "");
        }
    }

    /** inode → PID of the first process found with a descriptor on that socket. */
    private Map<Long, Long> owners(Set<Long> inodes) {
        Map<Long, Long> found = new HashMap<>();
        if (inodes.isEmpty()) return found;
        try (DirectoryStream<Path> pids = Files.newDirectoryStream(proc, p -> p.getFileName().toString().chars().allMatch(Character::isDigit))) {
            for (Path pidDir : pids) {
                long pid = Long.parseLong(pidDir.getFileName().toString());
                try (DirectoryStream<Path> fds = Files.newDirectoryStream(pidDir.resolve("fd"))) {
                    for (Path fd : fds) {
                        Optional<Long> inode = link(fd).map(Path::toString).flatMap(ProcTable::socketInode);
                        if (inode.isPresent() && inodes.contains(inode.get())) found.putIfAbsent(inode.get(), pid);
                    }
                } catch (IOException | SecurityException e) {
                    // another user's process, or gone: cannot be seen
                }
                if (found.size() == inodes.size()) break;
            }
        } catch (IOException e) {
            // no /proc here: nothing can be seen
        }
        return found;
    }

    private static Optional<Long> socketInode(String target) {
        if (!target.startsWith("socket:[") || !target.endsWith("]")) return Optional.empty();
        try {
            return Optional.of(Long.parseLong(target.substring(8, target.length() - 1)));
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
    }

    private static Optional<Path> link(Path p) {
        try {
            return Optional.of(Files.readSymbolicLink(p));
        } catch (IOException | UnsupportedOperationException | SecurityException e) {
            return Optional.empty();
        }
    }

    private static boolean sameFile(Path bound, Path socket) {
        Path a = bound.toAbsolutePath().normalize(), b = socket.toAbsolutePath().normalize();
        if (a.equals(b)) return true;
        try {
            return Files.exists(a) && Files.exists(b) && Files.isSameFile(a, b);
        } catch (IOException e) {
            return false;
        }
    }

    private static long hex(String s) {
        try {
            return Long.parseLong(s.toLowerCase(Locale.ROOT), 16);
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    private static List<String> lines(Path file) {
        try {
            return Files.readAllLines(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            return List.of();
        }
    }
}
