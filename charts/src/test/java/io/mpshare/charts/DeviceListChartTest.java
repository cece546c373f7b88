package io.mpshare.charts;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** devicePlugin.deviceListStrategy=cdi: the spec folder shared with the host's runtime (device-specs and envvar: ChartTest). */
class DeviceListChartTest {
    @Test
    void cdi_specFolderMountedWritable_driverFoundUnderTheHostRoot() {
        Rendered r = Rendered.of(Map.of("devicePlugin.deviceListStrategy", "cdi", "devicePlugin.cdiSpecDir", "/etc/cdi"));
        PodSpec pod = r.one(DaemonSet.class, Rendered.RELEASE + "-device-plugin").getSpec().getTemplate().getSpec();
        Container c = Rendered.container(pod, "device-plugin");
        assertThat(c.getArgs()).contains("--device-list-strategy=cdi", "--cdi-spec-dir=/etc/cdi", "--driver-root=/", "--driver-root-mount=/driver-root");
        assertThat(pod.getVolumes()).filteredOn(v -> v.getName().equals("cdi-specs")).singleElement()
                .satisfies(v -> assertThat(v.getHostPath().getPath()).isEqualTo("/etc/cdi"));
        assertThat(c.getVolumeMounts()).filteredOn(m -> m.getName().equals("cdi-specs")).singleElement()
                .satisfies(m -> assertThat(m.getReadOnly()).isNotEqualTo(Boolean.TRUE));
        assertThat(pod.getVolumes()).extracting(Volume::getName).contains("driver-root", "host-dev");
    }
}
