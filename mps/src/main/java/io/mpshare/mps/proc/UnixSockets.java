package io.mpshare.mps.proc;

import java.util.ArrayList;
import java.util.List;

/**
 * One network namespace's unix sockets, parsed from its {@code /proc/net/unix}:
 * <pre>
 * Num       RefCount Protocol Flags    Type St Inode Path
 * 0000000000000000: 00000002 00000000 00010000 0005 01 23410 /run/mpshare/blue/pipe/control
 * 0000000000000000: 00000003 00000000 00000000 0005 03 23977 /run/mpshare/blue/pipe/control
 * 0000000000000000: 00000003 00000000 00000000 0005 03 23976
 * </pre>
 * Type {@code 0001} stream, {@code 0002} datagram, {@code 0005} seqpacket (the MPS control socket); state {@code 01}
 * unconnected, {@code 03} connected; flag {@code 00010000} listening. A listening socket and the connections it accepted
 * carry its path; the connecting side carries none (it never bound), which is why a peer is found by elimination, not
 * named by the kernel here.
 */
public record UnixSockets(List<Entry> entries) {
    static final int LISTENING = 0x10000;
    static final int CONNECTED = 3;

    public UnixSockets { entries = List.copyOf(entries); }

    /** One line: type and state as numbers, the path or "" (an abstract name keeps its leading {@code @}). */
    public record Entry(long inode, int flags, int type, int state, String path) {
        public boolean listening() { return (flags & LISTENING) != 0; }

        public boolean connected() { return state == CONNECTED; }
    }

    /** Parses the file's text; lines that are not in the format (the header, a cut last line) are skipped. */
    public static UnixSockets parse(String text) {
        List<Entry> out = new ArrayList<>();
        for (String line : text.split("\n")) {
            String[] f = line.strip().split("\\s+", 8);
            if (f.length < 7 || !f[0].endsWith(":")) continue;
            try {
                out.add(new Entry(Long.parseLong(f[6]), Integer.parseInt(f[3], 16), Integer.parseInt(f[4], 16), Integer.parseInt(f[5], 16),
                        f.length == 8 ? f[7] : ""));
            } catch (NumberFormatException e) {
                // not an entry
            }
        }
        return new UnixSockets(out);
    }

    /** The listening socket bound at {@code path}, or null. */
    public Entry listener(String path) {
        return entries.stream().filter(e -> e.listening() && e.path().equals(path)).findFirst().orElse(null);
    }

    /** How many connections the listener at {@code path} has accepted (they carry its path). */
    public long accepted(String path) {
        return entries.stream().filter(e -> !e.listening() && e.connected() && e.path().equals(path)).count();
    }

    /** The entry of socket {@code inode}, or null. */
    public Entry byInode(long inode) {
        for (Entry e : entries) if (e.inode() == inode) return e;
        return null;
    }
}
