package io.mpshare.mps;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class MpsBinaryTest {
    @TempDir Path tmp;

    @Test void locate_onPath() {
        Path bin = FakeBinary.install(tmp.resolve("a"));
        assertThat(MpsBinary.locate(Optional.empty(), "/nonexistent:" + tmp.resolve("a"), List.of())).isEqualTo(bin);
    }

    @Test void locate_fallbackDirs() {
        Path bin = FakeBinary.install(tmp.resolve("nvidia/bin"));
        assertThat(MpsBinary.locate(Optional.empty(), "", List.of(tmp.resolve("nvidia/bin")))).isEqualTo(bin);
    }

    @Test void locate_configuredNotExecutable_saysSo() {
        assertThatThrownBy(() -> MpsBinary.locate(Optional.of(tmp.resolve("x")), "", List.of())).hasMessageContaining("not an executable");
    }

    @Test void locate_nowhere_namesWhereItLooked() {
        assertThatThrownBy(() -> MpsBinary.locate(Optional.empty(), "", List.of(tmp))).hasMessageContaining("not found").hasMessageContaining("--mps-control-binary");
    }
}
