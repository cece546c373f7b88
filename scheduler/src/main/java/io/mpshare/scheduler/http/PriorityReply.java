package io.mpshare.scheduler.http;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/**
 * The {@code HostPriorityList} for names read as bytes ({@link RawNames}), written by hand into one per-thread buffer:
 * each node's name copied from the request body (it holds no escapes, {@link WireReader#scanNames}), its score as
 * digits. The bytes are those Jackson writes for the same list ({@code PriorityReplyTest}).
 */
final class PriorityReply {
    private static final byte[] HOST = "{\"Host\":".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] SCORE = ",\"Score\":".getBytes(StandardCharsets.US_ASCII);

    private final ThreadLocal<FilterReply.Sink> sinks = ThreadLocal.withInitial(FilterReply.Sink::new);

    void write(OutputStream out, int[] scores, RawNames names) {
        FilterReply.Sink b = sinks.get();
        b.n = 0;
        byte[] src = names.buf();
        int[] off = names.off(), len = names.len();
        b.put((byte) '[');
        for (int i = 0; i < names.count(); i++) {
            if (i > 0) b.put((byte) ',');
            b.put(HOST);
            b.put(src, off[i] - 1, len[i] + 2); // the name with its quotes
            b.put(SCORE);
            number(b, scores[i]);
            b.put((byte) '}');
        }
        b.put((byte) ']');
        try {
            out.write(b.buf, 0, b.n);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        if (b.buf.length > FilterReply.Sink.KEEP) b.buf = new byte[FilterReply.Sink.KEEP]; // a huge reply's buffer is not kept
    }

    private static void number(FilterReply.Sink b, int v) {
        if (v >= 0 && v < 10) { b.put((byte) ('0' + v)); return; }
        b.put(Integer.toString(v).getBytes(StandardCharsets.US_ASCII));
    }
}
