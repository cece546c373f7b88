package io.mpshare.scheduler.http;

import java.nio.charset.StandardCharsets;
import java.util.AbstractList;
import java.util.List;
import java.util.RandomAccess;

/**
 * Node names as they stand in a request body: name {@code i} is the UTF-8 of {@code buf[off[i], off[i]+len[i])},
 * the content of a JSON string without escapes or control characters, so it can be looked up in the core's
 * {@code FitIndex} (by {@code hash[i]}, its {@code FitIndex.hash}) and echoed into the reply by copying bytes.
 * {@link #asList} builds Strings only on demand.
 */
public record RawNames(byte[] buf, int[] off, int[] len, int[] hash, int count) {
    public String name(int i) { return new String(buf, off[i], len[i], StandardCharsets.UTF_8); }

    /** The names as strings, each built when read. */
    public List<String> asList() {
        final class View extends AbstractList<String> implements RandomAccess {
            @Override public String get(int i) { if (i >= count) throw new IndexOutOfBoundsException(i); return name(i); }
            @Override public int size() { return count; }
        }
        return new View();
    }
}
