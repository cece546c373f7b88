package io.mpshare.core.ledger;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Map;

/**
 * A compact index for the filter: node name → slot in an open-addressing table, and per slot the node's
 * per-GPU fit keys ({@link NodeState}'s {@code (free MiB << 7) | free cores}, -1 for a GPU that can take
 * nothing) copied inline into one flat {@code long[]}. A filter over 5,000 names then walks two arrays
 * instead of a hash map, 5,000 key strings and 5,000 snapshots.
 *
 * <p>The {@link Ledger} keeps it current: every change of a node's snapshot is written here inside the
 * same node-level critical section, so for one node the index sees changes in the ledger's order.
 * Readers never lock. Each slot carries a version (a seqlock): a writer makes it odd, writes, makes it
 * even again; a reader retries while it is odd or moved, so it always sees one snapshot's keys, never a
 * mix. Names are looked up by UTF-8 bytes (straight from a request body, {@link #hash}) or by {@code String}
 * (a second probe table by {@code String.hashCode}, so the ledger's own name objects are identity hits); a name once
 * seen keeps its slot (a removed node is marked absent), so the table grows only with distinct names.
 *
 * <p>What a slot answers: {@link View#room} counts the GPUs that can take {@code needMib} and
 * {@code needCore}% now, exactly what {@code Fitting.candidates} counts for the same snapshot; nodes with
 * more than {@link #WIDTH} GPUs, unknown names and absent nodes answer a negative code and the caller
 * asks the ledger's snapshot instead. For the one-UID-per-daemon rule a slot also keeps a summary of the
 * UIDs its booked pods run as ({@link NodeState#uids}: none, one UID, several), so
 * {@link View#room(int, long, int, int, long)} can say whether a pod of a given UID conflicts there, exactly
 * as {@code Fitting.uidConflict} decides on the snapshot.
 *
 * <p>Versions. A slot's version grows by 2 with each write, so a reader can tell that nothing it depends on changed
 * between two reads ({@link View#version}); the slot also keeps the snapshot it was written from ({@link View#state}),
 * read against the same version. {@link #touch} moves a node's version without a new snapshot, for inputs of a
 * node's score kept outside it (the extender's host room): a remembered score ({@code ScoreBoard}) is valid while
 * its node's version stays.
 */
public final class FitIndex {
    /** GPUs kept inline per node. */
    public static final int WIDTH = 8;
    /** {@link View#room}: name never seen or node absent (no inventory now). */
    public static final int ABSENT = -1;
    /** {@link View#room}: node has more GPUs than {@link #WIDTH}; ask the snapshot. */
    public static final int WIDE = -2;
    /** {@link View#room(int, long, int, int, long)}: enough GPUs have room, but pods of another UID are booked on the node. */
    public static final int UID_CONFLICT = -3;
    /** {@link View#room(int, long, int, int, long)}: enough room; the node's one UID is too large to keep inline: ask the snapshot. */
    public static final int UID_UNSURE = -4;
    /** The {@code uid} argument of {@link View#room(int, long, int, int, long)} for a pod the UID rule does not judge. */
    public static final long NO_UID = -1;
    /** UIDs kept inline: {@code 0 <= uid < MAX_UID} (Kubernetes allows 0 to 2^31-1). */
    public static final long MAX_UID = 1L << 54;
    // per slot: version, meta, keys. meta = (uid summary << 8) | GPU count (0..WIDTH, or COUNT_WIDE, COUNT_ABSENT);
    // uid summary: 0 no known UID booked, u + 1 exactly UID u, MANY_UIDS several, UID_OUT_OF_RANGE one UID >= MAX_UID
    private static final int STRIDE = 2 + WIDTH;
    private static final int COUNT_ABSENT = 0xFF, COUNT_WIDE = 0xFE;
    private static final long MANY_UIDS = -1, UID_OUT_OF_RANGE = -2;
    private static final VarHandle LONGS = MethodHandles.arrayElementVarHandle(long[].class);
    private static final VarHandle INTS = MethodHandles.arrayElementVarHandle(int[].class);

    private static final class Table {
        final long[] probe;     // per bucket (the bytes' hash << 32) | (slot + 1), 0 = empty: a miss is told without the slot's arrays
        final int[] probeS;     // the same by String.hashCode, for names given as Strings
        final String[] strings;
        final NodeState[] states; // the snapshot each slot was last written from (null: absent)
        final int mask;
        final byte[][] names;
        final int[] hashes;
        final long[] data;
        int size;               // writers only

        Table(int buckets, int slots) {
            probe = new long[buckets];
            probeS = new int[buckets];
            strings = new String[slots];
            states = new NodeState[slots];
            mask = buckets - 1;
            names = new byte[slots][];
            hashes = new int[slots];
            data = new long[slots * STRIDE];
        }
    }

    private volatile Table table = new Table(1024, 512);

    /** Records the snapshot of {@code name} (null: the node is gone). Called by the ledger under the node's lock. */
    synchronized void update(String name, NodeState s) {
        byte[] b = name.getBytes(StandardCharsets.UTF_8);
        int h = hash(b, 0, b.length);
        Table t = table;
        int slot = find(t, b, 0, b.length, h);
        if (slot < 0) {
            if (s == null) return;
            if (t.size == t.names.length || (t.size + 1) * 2 > t.probe.length) t = grow(t);
            slot = t.size++;
            t.names[slot] = b;
            t.strings[slot] = name;
            t.hashes[slot] = h;
            t.data[slot * STRIDE + 1] = COUNT_ABSENT;
            int i = h & t.mask;
            while (t.probe[i] != 0) i = (i + 1) & t.mask;
            LONGS.setRelease(t.probe, i, entry(h, slot));
            i = stringHash(name) & t.mask;
            while (t.probeS[i] != 0) i = (i + 1) & t.mask;
            INTS.setRelease(t.probeS, i, slot + 1);
        }
        write(t, slot, s);
    }

    /**
     * Moves the version of {@code name}'s slot without changing what it holds: an input of the node's score kept
     * outside its snapshot changed (a node never seen: nothing to do). Readers of the slot read again.
     */
    public synchronized void touch(String name) {
        Table t = table;
        int slot = find(t, name);
        if (slot < 0) return;
        int base = slot * STRIDE;
        LONGS.setRelease(t.data, base, (long) LONGS.getVolatile(t.data, base) + 2);
    }

    private static void write(Table t, int slot, NodeState s) {
        long[] d = t.data;
        int base = slot * STRIDE;
        long v = d[base];
        LONGS.setVolatile(d, base, v + 1);
        VarHandle.storeStoreFence();
        t.states[slot] = s;
        if (s == null) d[base + 1] = COUNT_ABSENT;
        else if (s.gpuCount() > WIDTH) d[base + 1] = COUNT_WIDE;
        else {
            int n = s.gpuCount();
            d[base + 1] = (uidSummary(s.uids()) << 8) | n;
            for (int i = 0; i < n; i++) d[base + 2 + i] = s.fitKey(i);
        }
        LONGS.setRelease(d, base, v + 2);
    }

    /** Whether a UID is kept inline (see {@link #MAX_UID}); a pod of another UID is asked of the snapshot. */
    public static boolean inlineUid(long uid) { return uid >= 0 && uid < MAX_UID; }

    private static long uidSummary(Map<Long, Integer> uids) {
        if (uids.isEmpty()) return 0;
        if (uids.size() > 1) return MANY_UIDS;
        long u = uids.keySet().iterator().next();
        return inlineUid(u) ? u + 1 : UID_OUT_OF_RANGE;
    }

    private Table grow(Table old) {
        int slots = old.names.length * 2;
        Table t = new Table(Integer.highestOneBit(slots * 2 - 1) * 2, slots);
        System.arraycopy(old.names, 0, t.names, 0, old.size);
        System.arraycopy(old.hashes, 0, t.hashes, 0, old.size);
        System.arraycopy(old.strings, 0, t.strings, 0, old.size);
        System.arraycopy(old.states, 0, t.states, 0, old.size);
        System.arraycopy(old.data, 0, t.data, 0, old.size * STRIDE);
        for (int s = 0; s < old.size; s++) {
            t.data[s * STRIDE] &= ~1L; // no writer is mid-way: writes are serialised on this index
            int i = t.hashes[s] & t.mask;
            while (t.probe[i] != 0) i = (i + 1) & t.mask;
            t.probe[i] = entry(t.hashes[s], s);
            i = stringHash(t.strings[s]) & t.mask;
            while (t.probeS[i] != 0) i = (i + 1) & t.mask;
            t.probeS[i] = s + 1;
        }
        t.size = old.size;
        table = t; // volatile publish; readers still on the old table see it as of this moment
        return t;
    }

    private static long entry(int hash, int slot) { return ((long) hash << 32) | (slot + 1); }

    private static int find(Table t, byte[] b, int off, int len, int h) {
        long[] probe = t.probe;
        for (int i = h & t.mask; ; i = (i + 1) & t.mask) {
            long e = (long) LONGS.getAcquire(probe, i);
            if (e == 0) return -1;
            int s = (int) e - 1;
            if ((int) (e >>> 32) == h && same(t.names[s], b, off, len)) return s;
        }
    }

    static boolean same(byte[] name, byte[] b, int off, int len) {
        if (name.length != len) return false;
        if (len < 8) {
            for (int i = 0; i < len; i++) if (name[i] != b[off + i]) return false;
            return true;
        }
        for (int i = 0; i + 8 < len; i += 8) if ((long) LE.get(name, i) != (long) LE.get(b, off + i)) return false;
        return (long) LE.get(name, len - 8) == (long) LE.get(b, off + len - 8); // the last word, overlapping the one before
    }

    /** By String: String's own (cached, intrinsic) hash and equals, so a name that is the ledger's own String is an identity hit. */
    private static int find(Table t, String name) {
        int[] probe = t.probeS;
        for (int i = stringHash(name) & t.mask; ; i = (i + 1) & t.mask) {
            int e = (int) INTS.getAcquire(probe, i);
            if (e == 0) return -1;
            String s = t.strings[e - 1];
            if (s == name || s.equals(name)) return e - 1;
        }
    }

    private static int stringHash(String name) {
        int h = name.hashCode() * 0x9E3779B9;
        return h ^ (h >>> 16);
    }

    private static final VarHandle LE = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final long K = 0x9E3779B97F4A7C15L;

    /**
     * Hash of a name's UTF-8 bytes (the same for the bytes of a request and for the stored name): each full
     * 8-byte little-endian word goes through {@link #hashStep}, the last 0-7 bytes (as a little-endian word)
     * and the length through {@link #hashEnd}. A reader may compute it while scanning a request.
     */
    public static int hash(byte[] b, int off, int len) {
        long h = 0;
        int i = off, end = off + len;
        for (; i + 8 <= end; i += 8) h = hashStep(h, (long) LE.get(b, i));
        long tail = 0;
        for (int shift = 0; i < end; i++, shift += 8) tail |= (b[i] & 0xFFL) << shift;
        return hashEnd(h, tail, len);
    }

    /** One full word of {@link #hash}. */
    public static long hashStep(long h, long word) { return (h ^ word) * K; }

    /** The end of {@link #hash}: the remaining bytes as a little-endian word (zero above them) and the name's length. */
    public static int hashEnd(long h, long tail, int len) {
        h = ((h ^ tail) * K) ^ len;
        h *= K;
        return (int) (h ^ (h >>> 29));
    }

    /** The current table, to look up and read many names against one consistent set of slots. */
    public View view() { return new View(table); }

    /** A reader's handle; cheap, not shared between threads, valid until dropped. */
    public static final class View {
        private final Table t;

        private View(Table t) { this.t = t; }

        /** Slot of the name in {@code b[off, off+len)} (UTF-8), or -1 when never seen. */
        public int slot(byte[] b, int off, int len) { return find(t, b, off, len, hash(b, off, len)); }

        /** {@link #slot(byte[], int, int)} with the name's {@link #hash} already known (computed while scanning). */
        public int slot(byte[] b, int off, int len, int hash) { return find(t, b, off, len, hash); }

        /** Slot of {@code name}, or -1 when never seen. */
        public int slot(String name) { return find(t, name); }

        /**
         * The name of the node in {@code slot} as the ledger's own {@code String} (its hash already computed), or null
         * for a negative slot: a reader of names as bytes gets the ledger's key without building a String per name.
         */
        public String name(int slot) { return slot < 0 ? null : t.strings[slot]; }

        /** Slots this table holds room for: every slot of it is below this. */
        public int capacity() { return t.names.length; }

        /**
         * The version of {@code slot} (even; it grows with every write and {@link #touch} of the node), read when no
         * writer is mid-way. Each version names one snapshot and one state of the inputs {@link #touch} stands for.
         */
        public long version(int slot) {
            int base = slot * STRIDE;
            while (true) {
                long v = (long) LONGS.getAcquire(t.data, base);
                if ((v & 1) == 0) return v;
                Thread.onSpinWait();
            }
        }

        /**
         * The snapshot {@code slot} was last written from (null: the node is absent). Read it between {@link #version}
         * and {@link #still}: when the slot still has that version, this is the snapshot the version names.
         */
        public NodeState state(int slot) { return t.states[slot]; }

        /** Whether {@code slot} still has {@code version} (reads before this one are done first). */
        public boolean still(int slot, long version) {
            VarHandle.loadLoadFence();
            return (long) LONGS.getOpaque(t.data, slot * STRIDE) == version;
        }

        /**
         * How many GPUs of the node in {@code slot} can take {@code needMib} MiB and {@code needCore}% now
         * (healthy, not over-booked, enough free memory and cores); {@link #ABSENT} for slot -1 or a node
         * without inventory, {@link #WIDE} for a node with more than {@link #WIDTH} GPUs.
         */
        public int room(int slot, long needMib, int needCore) { return room(slot, needMib, needCore, Integer.MAX_VALUE); }

        /** {@link #room(int, long, int)}, counting no further than {@code enough} (the filter stops at the pod's GPU count). */
        public int room(int slot, long needMib, int needCore, int enough) { return room(slot, needMib, needCore, enough, NO_UID); }

        /**
         * {@link #room(int, long, int, int)} for a pod that runs as {@code uid} under the one-UID-per-daemon rule
         * ({@link #NO_UID}: not judged; else an {@link #inlineUid}): when at least {@code enough} GPUs have room,
         * {@link #UID_CONFLICT} if the node's booked pods run as a UID other than {@code uid} (what
         * {@code Fitting.uidConflict} answers on the same snapshot), {@link #UID_UNSURE} if the node's UID is not kept
         * inline. With too little room the count, as without a UID (the room is the first reason).
         */
        public int room(int slot, long needMib, int needCore, int enough, long uid) {
            if (slot < 0) return ABSENT;
            long[] d = t.data;
            int base = slot * STRIDE;
            while (true) {
                long v = (long) LONGS.getAcquire(d, base);
                if ((v & 1) != 0) { Thread.onSpinWait(); continue; }
                long meta = d[base + 1];
                int n = (int) (meta & 0xFF);
                int count;
                if (n == COUNT_ABSENT) count = ABSENT;
                else if (n == COUNT_WIDE) count = WIDE;
                else {
                    count = 0;
                    for (int i = 0; i < n && count < enough; i++) {
                        long k = d[base + 2 + i];
                        if (k >= 0 && (k & 127) >= needCore && (k >>> 7) >= needMib) count++;
                    }
                    if (uid >= 0 && count >= enough) {
                        long u = meta >> 8;
                        if (u == MANY_UIDS || (u > 0 && u - 1 != uid)) count = UID_CONFLICT;
                        else if (u == UID_OUT_OF_RANGE) count = UID_UNSURE;
                    }
                }
                VarHandle.loadLoadFence();
                if ((long) LONGS.getOpaque(d, base) == v) return count;
            }
        }
    }
}
