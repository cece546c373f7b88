package io.mpshare.nvml;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** CI has no GPU: FfmNvml must fail there with one clear message. The real library is tested in e2e/gpu. */
class FfmNvmlTest {
    @Test void open_missingLibrary_saysWhatIsMissing() {
        assertThatThrownBy(() -> FfmNvml.open("libnvidia-ml-does-not-exist.so.1"))
                .isInstanceOf(NvmlException.class)
                .hasMessageContaining("NVML is not available")
                .hasMessageContaining("libnvidia-ml-does-not-exist.so.1")
                .hasMessageContaining("NVIDIA driver")
                .hasNoCause()
                .satisfies(e -> assertThat(((NvmlException) e).code()).isEqualTo(-1));
    }

    @Test void open_libraryWithoutNvmlSymbols_namesTheMissingFunction() {
        // libc loads but has no NVML functions: the message names the first one looked up.
        assertThatThrownBy(() -> FfmNvml.open("libc.so.6"))
                .isInstanceOf(NvmlException.class)
                .hasMessageContaining("nvmlErrorString")
                .hasMessageContaining("too old");
    }

    @Test void layouts_matchNvmlHeaders() {
        assertThat(FfmNvml.processInfoSize()).as("nvmlProcessInfo_t: u32, pad, u64, u32, u32").isEqualTo(24);
        assertThat(FfmNvml.eventDataSize()).as("nvmlEventData_t: ptr, u64, u64, u32, u32").isEqualTo(32);
    }

    @Test void xids_applicationErrorsAreNotCritical() {
        assertThat(Xids.isCritical(13)).isFalse();
        assertThat(Xids.isCritical(31)).isFalse();
        assertThat(Xids.isCritical(43)).isFalse();
        assertThat(Xids.isCritical(79)).isTrue();
        assertThat(Xids.isCritical(48)).isTrue();
    }

    @Test void exception_carriesCallCodeAndNvmlText() {
        NvmlException e = new NvmlException("nvmlDeviceGetUUID(0)", 15, "GPU is lost");
        assertThat(e.code()).isEqualTo(15);
        assertThat(e).hasMessage("nvmlDeviceGetUUID(0) failed: GPU is lost (NVML return 15)");
    }
}
