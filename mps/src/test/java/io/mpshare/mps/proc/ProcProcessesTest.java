package io.mpshare.mps.proc;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/** Processes read from fake /proc trees. */
class ProcProcessesTest {
    @TempDir Path root;

    @Test void parseStat_commandWithSpacesAndParentheses() {
        assertThat(ProcProcesses.parseStat("77 (a) b) c) Z 12 77 77 0")).isEqualTo(new ProcProcesses.Stat('Z', 12));
        assertThat(ProcProcesses.parseStat("garbage")).isNull();
    }

    @Test void alive_zombieIsDead_goneIsDead() {
        new FakeProc(root).process(10, 'S', 1, 0, "a", 1).process(11, 'Z', 10, 0, "b", 1).process(12, 'R', 10, 1000, "nvidia-cuda-mps-server", 1);
        ProcProcesses p = new ProcProcesses(root);
        assertThat(p.alive(10)).isTrue();
        assertThat(p.alive(11)).isFalse();
        assertThat(p.alive(13)).isFalse();
        assertThat(p.liveChildren(10)).containsExactly(12L);
        assertThat(p.uid(12)).contains(1000);
        assertThat(p.command(12)).contains("nvidia-cuda-mps-server");
        assertThat(p.uid(13)).isEmpty();
    }
}
