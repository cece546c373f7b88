package io.mpshare.host;

import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

class HostRuntimeTest {
    @Test void openNvml_withoutDriver_saysNoGpuOrNvml() {
        assumeFalse(Files.exists(Path.of("/dev/nvidiactl")), "this machine has an NVIDIA driver");
        assertThatThrownBy(HostRuntime::openNvml).isInstanceOf(HostRuntime.StartException.class)
                .hasMessageContaining("no NVIDIA GPU here, or no NVML");
    }
}
