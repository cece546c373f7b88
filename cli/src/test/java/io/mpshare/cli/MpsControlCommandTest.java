package io.mpshare.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/** Wrong set-ups end with one line and an exit code, before anything starts. */
class MpsControlCommandTest {
    @TempDir Path tmp;

    private String stderrOf(Runnable r) {
        PrintStream old = System.err;
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        System.setErr(new PrintStream(buf, true, StandardCharsets.UTF_8));
        try {
            r.run();
        } finally {
            System.setErr(old);
        }
        return buf.toString(StandardCharsets.UTF_8);
    }

    @Test void missingBinary_exit1_saysWhatToDo() {
        int[] rc = new int[1];
        String err = stderrOf(() -> rc[0] = Main.run("mps-control", "--run-dir", tmp.toString(), "--mps-control-binary", tmp.resolve("nope").toString()));
        assertThat(rc[0]).isEqualTo(1);
        assertThat(err).contains("mpshare mps-control:").contains("not an executable");
    }

    @Test void badColour_exit2() {
        int[] rc = new int[1];
        String err = stderrOf(() -> rc[0] = Main.run("mps-control", "--colour", "red", "--run-dir", tmp.toString()));
        assertThat(rc[0]).isEqualTo(2);
        assertThat(err).contains("blue or green");
    }
}
