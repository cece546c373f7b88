package io.mpshare.mps.proc;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** Writes a fake {@code /proc} tree: processes with stat, status, cmdline, fd links, a network namespace and its net/unix. */
final class FakeProc {
    static final String HEADER = "Num       RefCount Protocol Flags    Type St Inode Path\n";
    final Path root;

    FakeProc(Path root) { this.root = root; }

    /** A process: {@code state} letter, parent, effective UID, command line, network namespace id. */
    FakeProc process(long pid, char state, long parent, int uid, String command, int netns) {
        Path d = root.resolve(String.valueOf(pid));
        write(d.resolve("stat"), pid + " (" + command.split(" ")[0] + ") " + state + " " + parent + " 1 1 0 -1 4194560 0 0\n");
        write(d.resolve("status"), "Name:\tx\nState:\t" + state + "\nUid:\t" + uid + "\t" + uid + "\t" + uid + "\t" + uid + "\n");
        write(d.resolve("cmdline"), command.replace(' ', '\0') + "\0");
        link(d.resolve("ns/net"), "net:[" + netns + "]");
        return this;
    }

    /** fd links {@code socket:[inode]} for each inode. */
    FakeProc sockets(long pid, long... inodes) {
        int fd = 3;
        for (long inode : inodes) link(root.resolve(pid + "/fd/" + fd++), "socket:[" + inode + "]");
        link(root.resolve(pid + "/fd/0"), "/dev/null");
        return this;
    }

    /** {@code pid}'s view of its namespace's net/unix (every process of a namespace sees the same table). */
    FakeProc netUnix(long pid, List<String> lines) {
        write(root.resolve(pid + "/net/unix"), HEADER + String.join("\n", lines) + "\n");
        return this;
    }

    static String line(int flags, int type, int state, long inode, String path) {
        return String.format("0000000000000000: 00000002 00000000 %08X %04X %02X %d%s", flags, type, state, inode, path.isEmpty() ? "" : " " + path);
    }

    static List<String> connected(int type, long from, int n) {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < n; i++) out.add(line(0, type, 3, from + i, ""));
        return out;
    }

    private static void write(Path p, String s) {
        try {
            Files.createDirectories(p.getParent());
            Files.writeString(p, s);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void link(Path p, String target) {
        try {
            Files.createDirectories(p.getParent());
            Files.createSymbolicLink(p, Path.of(target));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
