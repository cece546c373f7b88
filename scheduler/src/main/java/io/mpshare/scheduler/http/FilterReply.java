package io.mpshare.scheduler.http;

import io.mpshare.scheduler.verbs.Verbs;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Map;

/**
 * The {@code ExtenderFilterResult} for names read as bytes ({@link RawNames}), written by hand into one per-thread
 * buffer: the hot path of every filter. The kept names are copied from the request body in runs — nodes kept one
 * after the other in the request are one copy, quotes and commas included ({@link WireReader#scanNames} accepted only
 * {@code "name"} separated by a comma and whitespace, without escapes) — so a reply where every node fits is the
 * request's {@code NodeNames} array copied at once. Reasons go through {@link EventText#safe} and are encoded once
 * for a run of nodes with the same reason. The bytes are those Jackson writes for the same answer
 * ({@code FilterReplyTest}), less any whitespace the request had between names.
 */
final class FilterReply {
    private static final byte[] HEAD = ascii("{\"Nodes\":null,\"NodeNames\":");
    private static final byte[] FAILED = ascii(",\"FailedNodes\":");
    private static final byte[] UNRESOLVABLE = ascii(",\"FailedAndUnresolvableNodes\":");
    private static final byte[] ERROR = ascii(",\"Error\":");
    private static final byte[] NULL = ascii("null");

    private final ThreadLocal<Sink> sinks = ThreadLocal.withInitial(Sink::new);

    private static byte[] ascii(String s) { return s.getBytes(StandardCharsets.US_ASCII); }

    void write(OutputStream out, Verbs.IndexedFilterAnswer a, RawNames names) {
        Sink b = sinks.get();
        b.n = 0;
        b.put(HEAD);
        if (!a.error().isEmpty()) b.put(NULL);
        else names(b, a.fits(), a.fitCount(), names);
        b.put(FAILED);
        map(b, a.failed());
        b.put(UNRESOLVABLE);
        map(b, a.unresolvable());
        b.put(ERROR);
        b.string(EventText.safe(a.error()));
        b.put((byte) '}');
        try {
            out.write(b.buf, 0, b.n);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        if (b.buf.length > Sink.KEEP) b.buf = new byte[Sink.KEEP]; // a huge reply's buffer is not kept
    }

    /** {@code [` + kept names + `]}: each run of consecutive positions copied from its first opening quote to its last closing one. */
    private static void names(Sink b, int[] fits, int count, RawNames names) {
        byte[] src = names.buf();
        int[] off = names.off(), len = names.len();
        b.put((byte) '[');
        for (int k = 0; k < count; ) {
            int first = fits[k], last = first;
            while (k + 1 < count && fits[k + 1] == last + 1) { k++; last++; }
            if (k > last - first) b.put((byte) ','); // not the first run
            k++;
            int from = off[first] - 1, to = off[last] + len[last] + 1; // the quotes around the run
            b.put(src, from, to - from);
        }
        b.put((byte) ']');
    }

    private static void map(Sink b, Map<String, String> m) {
        b.put((byte) '{');
        String lastReason = null;
        byte[] encoded = null;
        boolean first = true;
        for (var e : m.entrySet()) {
            if (!first) b.put((byte) ',');
            first = false;
            b.string(e.getKey());
            b.put((byte) ':');
            String reason = e.getValue();
            if (reason != lastReason && (lastReason == null || !lastReason.equals(reason))) {
                Sink one = new Sink(reason.length() + 16);
                one.string(EventText.safe(reason));
                encoded = Arrays.copyOf(one.buf, one.n);
                lastReason = reason;
            }
            b.put(encoded);
        }
        b.put((byte) '}');
    }

    /** A growable byte buffer with a JSON string encoder (escapes as Jackson's default: quote, backslash, control characters). */
    static final class Sink {
        static final int KEEP = 1 << 20;
        private static final byte[] HEX = ascii("0123456789ABCDEF");
        byte[] buf;
        int n;

        Sink() { this(256 * 1024); }

        Sink(int capacity) { buf = new byte[capacity]; }

        private void room(int more) {
            if (n + more > buf.length) buf = Arrays.copyOf(buf, Math.max(buf.length * 2, n + more));
        }

        void put(byte c) { room(1); buf[n++] = c; }

        void put(byte[] b) { put(b, 0, b.length); }

        void put(byte[] b, int off, int len) {
            room(len);
            System.arraycopy(b, off, buf, n, len);
            n += len;
        }

        /** {@code s} as a JSON string, UTF-8 (a lone surrogate becomes {@code ?}, as String.getBytes does). */
        void string(String s) {
            int len = s.length();
            room(len * 6 + 2);
            byte[] d = buf;
            int j = n;
            d[j++] = '"';
            for (int i = 0; i < len; i++) {
                char c = s.charAt(i);
                if (c < 0x80) {
                    if (c == '"' || c == '\\') { d[j++] = '\\'; d[j++] = (byte) c; }
                    else if (c < 0x20) {
                        switch (c) {
                            case '\n' -> { d[j++] = '\\'; d[j++] = 'n'; }
                            case '\r' -> { d[j++] = '\\'; d[j++] = 'r'; }
                            case '\t' -> { d[j++] = '\\'; d[j++] = 't'; }
                            case '\b' -> { d[j++] = '\\'; d[j++] = 'b'; }
                            case '\f' -> { d[j++] = '\\'; d[j++] = 'f'; }
                            default -> { d[j++] = '\\'; d[j++] = 'u'; d[j++] = '0'; d[j++] = '0'; d[j++] = HEX[c >> 4]; d[j++] = HEX[c & 15]; }
                        }
                    } else d[j++] = (byte) c;
                } else if (c < 0x800) {
                    d[j++] = (byte) (0xC0 | (c >> 6)); d[j++] = (byte) (0x80 | (c & 0x3F));
                } else if (Character.isHighSurrogate(c) && i + 1 < len && Character.isLowSurrogate(s.charAt(i + 1))) {
                    int cp = Character.toCodePoint(c, s.charAt(++i));
                    d[j++] = (byte) (0xF0 | (cp >> 18)); d[j++] = (byte) (0x80 | ((cp >> 12) & 0x3F));
                    d[j++] = (byte) (0x80 | ((cp >> 6) & 0x3F)); d[j++] = (byte) (0x80 | (cp & 0x3F));
                } else if (Character.isSurrogate(c)) {
                    d[j++] = '?';
                } else {
                    d[j++] = (byte) (0xE0 | (c >> 12)); d[j++] = (byte) (0x80 | ((c >> 6) & 0x3F)); d[j++] = (byte) (0x80 | (c & 0x3F));
                }
            }
            d[j++] = '"';
            n = j;
        }
    }
}
