package io.mpshare.deviceplugin.driver;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The dynamic loader's cache ({@code /etc/ld.so.cache}, glibc's "glibc-ld.so.cache1.1" format, written by
 * {@code ldconfig}): which file the loader opens for each library name. Where a cache also holds the old libc5 part
 * first, the new part is found by its magic and its string offsets count from there, as the loader reads them.
 * Unreadable input gives an empty list: the cache is one of several places the driver is looked for.
 */
public final class LdCache {
    private static final byte[] MAGIC = "glibc-ld.so.cache1.1".getBytes(StandardCharsets.US_ASCII);
    private static final int HEADER = 48;
    private static final int ENTRY = 24;

    /** One library name ({@code libcuda.so.1}) and the path the loader opens for it. */
    public record Entry(String name, String path) {}

    private LdCache() {}

    public static List<Entry> parse(byte[] cache) {
        int base = indexOf(cache, MAGIC);
        if (base < 0 || cache.length < base + HEADER) return List.of();
        ByteBuffer b = ByteBuffer.wrap(cache).order(ByteOrder.nativeOrder());
        long count = Integer.toUnsignedLong(b.getInt(base + 20));
        if (count > (cache.length - base - HEADER) / ENTRY) return List.of();
        List<Entry> out = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            int at = base + HEADER + i * ENTRY;
            String name = string(cache, base, b.getInt(at + 4));
            String path = string(cache, base, b.getInt(at + 8));
            if (name != null && path != null) out.add(new Entry(name, path));
        }
        return List.copyOf(out);
    }

    private static String string(byte[] cache, int base, int offset) {
        long start = base + Integer.toUnsignedLong(offset);
        if (start >= cache.length) return null;
        int end = (int) start;
        while (end < cache.length && cache[end] != 0) end++;
        return end < cache.length ? new String(cache, (int) start, end - (int) start, StandardCharsets.UTF_8) : null;
    }

    private static int indexOf(byte[] data, byte[] what) {
        outer:
        for (int i = 0; i + what.length <= data.length; i++) {
            for (int j = 0; j < what.length; j++) if (data[i + j] != what[j]) continue outer;
            return i;
        }
        return -1;
    }
}
