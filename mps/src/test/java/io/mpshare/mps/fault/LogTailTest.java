package io.mpshare.mps.fault;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

import static org.assertj.core.api.Assertions.assertThat;

/** New lines of a log file: from its end at the start, partial lines kept, truncation and replacement followed. */
class LogTailTest {
    @TempDir Path dir;

    private void append(Path f, String s) throws IOException {
        Files.writeString(f, s, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
    }

    @Test void readNew_startsAtTheEnd_keepsPartialLines() throws IOException {
        Path f = dir.resolve("daemon.log");
        append(f, "old line\n");
        LogTail t = new LogTail(f, Long.MAX_VALUE);
        assertThat(t.readNew()).isEmpty();
        append(f, "one\ntw");
        assertThat(t.readNew()).containsExactly("one");
        append(f, "o\n");
        assertThat(t.readNew()).containsExactly("two");
    }

    @Test void readNew_fileAppearsLater_readFromItsStart() throws IOException {
        Path f = dir.resolve("server.log");
        LogTail t = new LogTail(f, Long.MAX_VALUE);
        assertThat(t.readNew()).isEmpty();
        append(f, "first\n");
        assertThat(t.readNew()).containsExactly("first");
    }

    @Test void readNew_fileTruncatedOrReplaced_readFromItsStart() throws IOException {
        Path f = dir.resolve("server.log");
        append(f, "a long line before\n");
        LogTail t = new LogTail(f, Long.MAX_VALUE);
        Files.writeString(f, "new\n");
        assertThat(t.readNew()).containsExactly("new");
    }

    @Test void readNew_pastTheLimit_truncatesItsOwnFile() throws IOException {
        Path f = dir.resolve("daemon.log");
        LogTail t = new LogTail(f, 10);
        append(f, "0123456789abc\n");
        assertThat(t.readNew()).containsExactly("0123456789abc");
        assertThat(Files.size(f)).isZero();
        append(f, "next\n");
        assertThat(t.readNew()).containsExactly("next");
    }
}
