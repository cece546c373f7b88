package io.mpshare.deviceplugin.driver;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class CdiSpecTest {
    private static final DriverFiles DRIVER = new DriverFiles("580.159.04",
            List.of(new Bind("/usr/lib/x/libcuda.so.580.159.04", "/usr/lib/x/libcuda.so.1")), List.of(new Bind("/usr/bin/nvidia-smi", "/usr/bin/nvidia-smi")),
            List.of(), List.of(new DeviceNode("/dev/nvidiactl", "/dev/nvidiactl")),
            Map.of(0, new DeviceNode("/dev/nvidia0", "/dev/nvidia0"), 1, new DeviceNode("/dev/nvidia3", "/dev/nvidia3")));

    @Test void json_oneDevicePerGpuByUuid_sharedEditsOnce() throws IOException {
        JsonNode spec = new ObjectMapper().readTree(CdiSpec.json(Map.of("GPU-b", 1, "GPU-a", 0), DRIVER));
        assertThat(spec.get("cdiVersion").asText()).isEqualTo("0.6.0");
        assertThat(spec.get("kind").asText()).isEqualTo("mpshare.io/gpu");
        assertThat(spec.get("devices")).hasSize(2);
        assertThat(spec.get("devices").get(1).get("name").asText()).isEqualTo("GPU-b");
        assertThat(spec.get("devices").get(1).at("/containerEdits/deviceNodes/0/hostPath").asText()).isEqualTo("/dev/nvidia3");
        assertThat(spec.at("/containerEdits/deviceNodes/0/path").asText()).isEqualTo("/dev/nvidiactl");
        assertThat(spec.at("/containerEdits/mounts")).hasSize(2);
        assertThat(spec.at("/containerEdits/mounts/0/containerPath").asText()).isEqualTo("/usr/lib/x/libcuda.so.1");
        assertThat(spec.at("/containerEdits/mounts/0/options").toString()).isEqualTo("[\"ro\",\"nosuid\",\"nodev\",\"bind\"]");
        assertThat(CdiSpec.deviceName("GPU-a")).isEqualTo("mpshare.io/gpu=GPU-a");
    }

    @Test void write_replacesTheSpecAndLeavesNoTemporaryFile(@TempDir Path dir) throws IOException {
        CdiSpec.write(dir, "{\"old\":1}");
        Path p = CdiSpec.write(dir, CdiSpec.json(Map.of("GPU-a", 0), DRIVER));
        assertThat(p).isEqualTo(dir.resolve("mpshare.io-gpu.json"));
        assertThat(Files.readString(p)).startsWith("{\"cdiVersion\"");
        try (var s = Files.list(dir)) {
            assertThat(s.toList()).containsExactly(p);
        }
    }

    @Test void str_quotesBackslashesAndControlCharacters() {
        assertThat(CdiSpec.str("a\"b\\c\n")).isEqualTo("\"a\\\"b\\\\c\\u000a\"");
    }
}
