package io.mpshare.nvml.fake;

import io.mpshare.nvml.Nvml.DeviceInfo;
import io.mpshare.nvml.Nvml.GpuProcess;
import io.mpshare.nvml.Nvml.XidEvent;
import io.mpshare.nvml.NvmlException;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class FakeNvmlTest {
    @Test void device_reportsProgrammedFactsAndUsedMemoryOfItsProcesses() {
        FakeNvml nvml = new FakeNvml().addH200().addDevice("GPU-abc", "NVIDIA H100", 81_559);
        nvml.setBaseUsed(0, 100).startMpsClient(0, 11, 612).startProcess(0, 12, 400);

        assertThat(nvml.deviceCount()).isEqualTo(2);
        assertThat(nvml.device(0)).isEqualTo(new DeviceInfo(0, "GPU-fake-0", "NVIDIA H200", 0, "00000000:19:00.0", 143_771, 1112));
        assertThat(nvml.device(1).uuid()).isEqualTo("GPU-abc");
        assertThat(nvml.device(1).usedMib()).isZero();
    }

    @Test void mpsClients_listsOnlyMpsProcesses_computeProcesses_listsAll() {
        FakeNvml nvml = new FakeNvml().addH200();
        nvml.startMpsClient(0, 11, 612).startProcess(0, 99, 300);

        assertThat(nvml.mpsClients(0)).containsExactly(new GpuProcess(11, 612));
        assertThat(nvml.computeProcesses(0)).containsExactly(new GpuProcess(11, 612), new GpuProcess(99, 300));
    }

    @Test void setUsed_changesWhatTheNextSampleSees() {
        FakeNvml nvml = new FakeNvml().addH200().startMpsClient(0, 11, 612);
        nvml.setUsed(0, 11, 9000);
        assertThat(nvml.mpsClients(0)).containsExactly(new GpuProcess(11, 9000));
        nvml.stopProcess(0, 11);
        assertThat(nvml.mpsClients(0)).isEmpty();
    }

    @Test void drainCriticalXids_returnsCriticalOnesOnce_andDropsApplicationXids() {
        FakeNvml nvml = new FakeNvml().addH200().addH200();
        nvml.injectXid(1, 79).injectXid(0, 13);

        assertThat(nvml.drainCriticalXids()).containsExactly(new XidEvent(1, "GPU-fake-1", 79));
        assertThat(nvml.drainCriticalXids()).isEmpty();
    }

    @Test void failNext_failsOneCallThenRecovers() {
        FakeNvml nvml = new FakeNvml().addH200();
        nvml.failNext("mpsClients", 15, "GPU is lost");

        assertThatThrownBy(() -> nvml.mpsClients(0)).isInstanceOf(NvmlException.class)
                .hasMessageContaining("GPU is lost").satisfies(e -> assertThat(((NvmlException) e).code()).isEqualTo(15));
        assertThat(nvml.mpsClients(0)).isEmpty();
        assertThat(nvml.calls("mpsClients")).isEqualTo(2);
    }

    @Test void device_unknownIndex_throwsInvalidArgument() {
        assertThatThrownBy(() -> new FakeNvml().addH200().device(3)).isInstanceOf(NvmlException.class);
    }

    @Test void close_laterCallsFailAsUninitialized() {
        FakeNvml nvml = new FakeNvml().addH200();
        nvml.close();
        assertThat(nvml.closed()).isTrue();
        assertThatThrownBy(nvml::deviceCount).hasMessageContaining("Uninitialized");
    }
}
