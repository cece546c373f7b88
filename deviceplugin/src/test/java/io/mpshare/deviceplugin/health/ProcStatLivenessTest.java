package io.mpshare.deviceplugin.health;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/** A zombie is dead: the state field of /proc/<pid>/stat, over a fake /proc. */
class ProcStatLivenessTest {
    @TempDir Path proc;

    private void stat(long pid, String line) throws IOException {
        Files.createDirectories(proc.resolve(Long.toString(pid)));
        Files.writeString(proc.resolve(pid + "/stat"), line);
    }

    record Case(String name, String stat, boolean alive) {}

    @Test void alive_byTheStateField() throws IOException {
        var cases = new Case[]{
                new Case("sleeping", "620 (nvidia-cuda-mps) S 601 620 601 0 -1 4194560 ...", true),
                new Case("running", "620 (nvidia-cuda-mps) R 601 620 601 0 -1 4194560 ...", true),
                new Case("disk wait", "620 (nvidia-cuda-mps) D 601 620 601 0 -1 4194560 ...", true),
                new Case("stopped", "620 (nvidia-cuda-mps) T 601 620 601 0 -1 4194560 ...", true),
                new Case("zombie: killed, parent (the supervisor) hung, not reaped", "620 (nvidia-cuda-mps) Z 601 620 601 0 -1 4227084 ...", false),
                new Case("dead", "620 (nvidia-cuda-mps) X 601 620 601 0 -1 ...", false),
                new Case("a name with ') Z' in it is read after the last ')'", "620 (evil) Z (x) S 601 620 601 0 ...", true),
                new Case("not a stat line", "garbage", false),
        };
        for (Case c : cases) {
            stat(620, c.stat());
            assertThat(new ProcStatLiveness(proc).alive(620)).as(c.name()).isEqualTo(c.alive());
        }
    }

    @Test void alive_pidNotInThisProc_isDead() {
        assertThat(new ProcStatLiveness(proc).alive(4242)).isFalse();
        assertThat(new ProcStatLiveness(proc).alive(-1)).isFalse();
    }
}
