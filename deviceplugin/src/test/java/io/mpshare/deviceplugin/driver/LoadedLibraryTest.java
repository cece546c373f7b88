package io.mpshare.deviceplugin.driver;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

class LoadedLibraryTest {
    @Test void find_theMappedFileByNamePrefix(@TempDir Path dir) throws IOException {
        Path maps = dir.resolve("maps");
        Files.writeString(maps, """
                55d0c0000000-55d0c0001000 r--p 00000000 fd:01 1 /usr/lib/jvm/bin/java
                7f00a0000000-7f00a0100000 r-xp 00000000 fd:01 2 /usr/local/nvidia/lib64/libnvidia-ml.so.580.159.04
                7ffd00000000-7ffd00021000 rw-p 00000000 00:00 0 [stack]
                """);
        assertThat(LoadedLibrary.find(maps, "libnvidia-ml.so")).contains(Path.of("/usr/local/nvidia/lib64/libnvidia-ml.so.580.159.04"));
        assertThat(LoadedLibrary.find(maps, "libcuda.so")).isEmpty();
        assertThat(LoadedLibrary.find(dir.resolve("gone"), "libnvidia-ml.so")).isEqualTo(Optional.empty());
    }
}
