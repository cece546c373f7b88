package io.mpshare.mps.fault;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

/**
 * The lines appended to one log file since the last read. It starts at the file's end (what was logged before the
 * supervisor watched is not a new fault), or at 0 for a file that does not exist yet; a file that got shorter was
 * truncated or replaced and is read from its start; a line not yet ended is kept for the next read. At most
 * {@link #MAX_READ} bytes are read at a time. A file the supervisor itself redirects the daemon's output to may be
 * truncated here once it passes {@code truncateAbove} bytes (the daemon appends with O_APPEND, so its next line lands at
 * the new end); other files are only read. Not thread-safe: one reader.
 */
public final class LogTail {
    static final int MAX_READ = 256 * 1024;
    private final Path file;
    private final long truncateAbove;
    private long offset;
    private final StringBuilder partial = new StringBuilder();

    /** @param truncateAbove truncate the file after reading past this size; {@code Long.MAX_VALUE}: never */
    public LogTail(Path file, long truncateAbove) {
        this.file = file;
        this.truncateAbove = truncateAbove;
        this.offset = size();
    }

    public Path file() { return file; }

    /** Complete lines appended since the last call; empty when none or the file cannot be read. */
    public List<String> readNew() {
        long size = size();
        if (size < offset) {
            offset = 0;
            partial.setLength(0);
        }
        if (size == offset) return List.of();
        List<String> lines = new ArrayList<>();
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            ByteBuffer buf = ByteBuffer.allocate((int) Math.min(MAX_READ, size - offset));
            int n = ch.read(buf, offset);
            if (n <= 0) return List.of();
            offset += n;
            partial.append(new String(buf.array(), 0, n, StandardCharsets.UTF_8));
        } catch (IOException e) {
            return List.of();
        }
        int start = 0;
        for (int i = 0; i < partial.length(); i++) {
            if (partial.charAt(i) == '\n') {
                lines.add(partial.substring(start, i));
                start = i + 1;
            }
        }
        partial.delete(0, start);
        if (offset >= truncateAbove && offset == size) truncate();
        return lines;
    }

    private void truncate() {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
            ch.truncate(0);
            offset = 0;
        } catch (IOException e) {
            // left as it is: read on
        }
    }

    private long size() {
        try {
            return Files.size(file);
        } catch (IOException e) {
            return 0;
        }
    }
}
