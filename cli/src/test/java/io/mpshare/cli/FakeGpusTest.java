package io.mpshare.cli;

import io.mpshare.nvml.fake.FakeNvml;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.Arrays;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class FakeGpusTest {
    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = ';', value = {
            "12036,16384,81559; 12036 16384 81559",
            "2x143771; 143771 143771",
            "16384, 2X8192; 16384 8192 8192",
            "' 24576 '; 24576"})
    void parse_sizes_oneDevicePerSizeInOrder(String value, String expected) {
        List<Long> mib = Arrays.stream(expected.split(" ")).map(Long::valueOf).toList();
        assertThat(FakeGpus.parse(value, "NVIDIA A10").mib()).isEqualTo(mib);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = ';', value = {"0", "2", "1023", "-5", "abc", "16384,", "x16384", "0x16384", "''"})
    void parse_refused_namesFlagAndExample(String value) {
        assertThatThrownBy(() -> FakeGpus.parse(value, "m")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("--fake-gpus " + value + ": write each fake GPU's memory in MiB, at least 1024")
                .hasMessageContaining("12036,16384,81559").hasMessageContaining("leave the flag out");
    }

    @Test void parse_tooMany_refused() {
        assertThatThrownBy(() -> FakeGpus.parse("65x16384", "m")).hasMessageContaining("at most 64 GPUs");
    }

    @Test void parse_blankModel_refused() {
        assertThatThrownBy(() -> FakeGpus.parse("16384", " ")).hasMessageContaining("--fake-gpu-model");
    }

    @Test void nvml_devicesHaveTheSizesAndModel() {
        FakeNvml nvml = FakeGpus.parse("12036,81559", "NVIDIA A100 80GB").nvml();
        assertThat(nvml.deviceCount()).isEqualTo(2);
        assertThat(nvml.device(0).totalMib()).isEqualTo(12036);
        assertThat(nvml.device(1).totalMib()).isEqualTo(81559);
        assertThat(nvml.device(1).name()).isEqualTo("NVIDIA A100 80GB");
    }
}
