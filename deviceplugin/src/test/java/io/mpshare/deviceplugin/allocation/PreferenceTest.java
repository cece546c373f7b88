package io.mpshare.deviceplugin.allocation;

import io.mpshare.deviceplugin.devices.DeviceIds;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class PreferenceTest {
    static List<String> ids(String gpu, int n) {
        var out = new ArrayList<String>();
        for (int i = 0; i < n; i++) out.add(DeviceIds.id(gpu, i));
        return out;
    }

    @Test void pick_preferredGpu_onlyItsIds() {
        var avail = new ArrayList<>(ids("GPU-a", 10));
        avail.addAll(ids("GPU-b", 10));
        assertThat(Preference.pick(avail, List.of(), 4, List.of("GPU-b"))).hasSize(4)
                .allSatisfy(id -> assertThat(DeviceIds.gpuUuid(id)).contains("GPU-b"));
    }

    @Test void pick_twoPreferredGpus_spreadEvenly() {
        var avail = new ArrayList<>(ids("GPU-a", 10));
        avail.addAll(ids("GPU-b", 10));
        var got = Preference.pick(avail, List.of(), 6, List.of("GPU-a", "GPU-b"));
        assertThat(got.stream().filter(id -> id.startsWith("GPU-a"))).hasSize(3);
        assertThat(got.stream().filter(id -> id.startsWith("GPU-b"))).hasSize(3);
    }

    @Test void pick_noPreference_fromTheGpuWithMostFree() {
        var avail = new ArrayList<>(ids("GPU-a", 3));
        avail.addAll(ids("GPU-b", 10));
        assertThat(Preference.pick(avail, List.of(), 5, List.of())).allSatisfy(id -> assertThat(id).startsWith("GPU-b"));
    }

    @Test void pick_mustIncludeFirst_sizeKept() {
        var avail = ids("GPU-a", 10);
        var got = Preference.pick(avail, List.of("GPU-a-_-7"), 3, List.of("GPU-a"));
        assertThat(got).hasSize(3).first().isEqualTo("GPU-a-_-7");
    }

    @Test void pick_preferredGpuShort_filledFromOthers() {
        var avail = new ArrayList<>(ids("GPU-a", 2));
        avail.addAll(ids("GPU-b", 10));
        assertThat(Preference.pick(avail, List.of(), 5, List.of("GPU-a"))).hasSize(5).doesNotHaveDuplicates();
    }
}
