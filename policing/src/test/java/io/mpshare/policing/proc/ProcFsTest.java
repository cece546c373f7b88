package io.mpshare.policing.proc;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;

import static org.assertj.core.api.Assertions.assertThat;

/** What the policer reads of a {@code /proc} tree: the kernel's fields, never the process's own words. */
class ProcFsTest {
    @TempDir Path proc;

    private void write(String file, String text) throws IOException {
        Path p = proc.resolve(file);
        Files.createDirectories(p.getParent());
        Files.writeString(p, text);
    }

    /** A stat line as the kernel writes it: 52 fields, starttime is field 22. */
    private static String stat(long pid, String comm, long ppid, long startTicks) {
        return pid + " (" + comm + ") S " + ppid + " " + pid + " " + pid + " 0 -1 4194560 1 0 0 0 5 2 0 0 20 0 1 0 " + startTicks
                + " 10000000 500 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 3 0 0 0 0 0 0 0 0 0 0 0 0 0\n";
    }

    @Test
    void startedAt_isTheBootTimePlusStartTicksInHundredths() throws IOException {
        write("stat", "cpu  10 0 5 100\nintr 1\nbtime 1796000000\nprocesses 9000\n");
        write("42/stat", stat(42, "python3", 1, 123_456));
        assertThat(new ProcFs(proc).startedAt(42)).contains(Instant.ofEpochSecond(1_796_000_000L).plusMillis(1_234_560));
    }

    @Test
    void startedAt_commWithSpacesAndParentheses_doesNotShiftTheFields() throws IOException {
        write("stat", "btime 1796000000\n");
        write("43/stat", stat(43, "x) S 7 7 7 (y", 1, 100));
        assertThat(new ProcFs(proc).startedAt(43)).contains(Instant.ofEpochSecond(1_796_000_001L));
        assertThat(new ProcFs(proc).parentPid(43)).contains(1L);
    }

    @Test
    void startedAt_processGoneOrNoBootTime_isEmpty() throws IOException {
        assertThat(new ProcFs(proc).startedAt(44)).isEmpty();
        write("45/stat", stat(45, "python3", 1, 100));
        assertThat(new ProcFs(proc).startedAt(45)).isEmpty(); // no /proc/stat
        write("stat", "btime 1796000000\n");
        write("46/stat", "46 (short) S 1 46\n");
        assertThat(new ProcFs(proc).startedAt(46)).isEmpty();
    }
}
