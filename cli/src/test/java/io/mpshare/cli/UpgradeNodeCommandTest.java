package io.mpshare.cli;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;

/** Wrong arguments end with one line and exit 2 (usage, docs/cli.md) before any API call. */
class UpgradeNodeCommandTest {
    private static String stderrOf(Runnable r) {
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

    @Test void neitherNodeNorAll_exit2() {
        int[] rc = new int[1];
        String err = stderrOf(() -> rc[0] = Main.run("upgrade-node"));
        assertThat(rc[0]).isEqualTo(ExitCodes.USAGE);
        assertThat(err).contains("name one NODE, or --all");
    }

    @Test void nodeAndAll_exit2() {
        int[] rc = new int[1];
        String err = stderrOf(() -> rc[0] = Main.run("upgrade-node", "gpu-1", "--all"));
        assertThat(rc[0]).isEqualTo(ExitCodes.USAGE);
        assertThat(err).contains("name one NODE, or --all");
    }

    @Test void help_listsTheOptions() {
        var out = new ByteArrayOutputStream();
        PrintStream old = System.out;
        System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
        try {
            Main.run("upgrade-node", "--help");
        } finally {
            System.setOut(old);
        }
        assertThat(out.toString(StandardCharsets.UTF_8)).contains("--max-wait").contains("--drain").contains("--dry-run")
                .contains("--concurrency").contains("mpshare.io/upgrade-state");
    }
}
