package io.mpshare.e2e.node;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.Pod;
import io.mpshare.core.Names;
import io.mpshare.testing.Waits;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Each device-list strategy's Allocate answer against what kubelet passed to containerd: the container's OCI spec as
 * containerd keeps it ({@code ctr containers info}) and what the container saw (its report). The plugin runs on the fake
 * driver tree ({@link FakeDriverTree}); device-specs is the tier's own strategy, restored after the others.
 */
@ExtendWith(NodeExtension.class)
class DeviceListStrategyIT {
    private static RealNode last;
    /** The strategy the node's plugin runs now: the tier starts it with device-specs, a test of another restarts it. */
    private static String running = "device-specs";

    /** One running reporter pod of 2 GiB: the pod, containerd's record of its container, what it saw. */
    record Seen(Pod pod, JsonNode spec, Map<String, String> report) {
        List<String> devices() {
            var out = new ArrayList<String>();
            spec.path("linux").path("devices").forEach(d -> out.add(d.path("path").asText()));
            return out;
        }

        JsonNode mount(String destination) {
            for (JsonNode m : spec.path("mounts")) if (m.path("destination").asText().equals(destination)) return m;
            return null;
        }

        List<String> env() {
            var out = new ArrayList<String>();
            spec.path("process").path("env").forEach(e -> out.add(e.asText()));
            return out;
        }
    }

    private static Seen run(RealNode node, String name) throws Exception {
        last = node;
        var ops = new PodOps(node);
        var out = node.outDir();
        ops.reporter(name, 2);
        ops.awaitRunning(name, Duration.ofSeconds(60));
        Waits.until(Duration.ofSeconds(30), () -> !TestPods.report(out, name).isEmpty(), () -> "no report from " + name);
        Pod pod = ops.get(name);
        String info = node.containerInfo(pod.getStatus().getContainerStatuses().getFirst().getContainerID());
        return new Seen(pod, new ObjectMapper().readTree(info).path("Spec"), TestPods.report(out, name));
    }

    private static void restart(RealNode node, String strategy) throws Exception {
        node.reregisterDevicePlugin(strategy, List.of());
        running = strategy;
    }

    @AfterAll static void backToDeviceSpecs() throws Exception {
        if (last == null) return;
        new PodOps(last).deleteAll();
        restart(last, "device-specs");
    }

    @Test void deviceSpecs_ociSpecHasTheBookedGpusNodeAndTheDriversFilesReadOnly(RealNode node) throws Exception {
        if (!running.equals("device-specs")) { // the methods' order is JUnit's: another strategy's test may have run first
            new PodOps(node).deleteAll();
            restart(node, "device-specs");
        }
        Seen s = run(node, "strategy-specs");
        String gpu = TestPods.bookedGpus(s.pod());
        String other = gpu.equals("0") ? "1" : "0";
        assertThat(s.devices()).contains("/dev/nvidia" + gpu, "/dev/nvidiactl", "/dev/nvidia-uvm").doesNotContain("/dev/nvidia" + other);
        JsonNode lib = s.mount(FakeDriverTree.LIB_DIR + "/libcuda.so.1");
        assertThat(lib).as("libcuda.so.1 bound into the container").isNotNull();
        assertThat(lib.path("source").asText()).isEqualTo(node.driverRoot().resolve("usr/local/nvidia/lib64/libcuda.so." + FakeDriverTree.VERSION).toString());
        assertThat(lib.path("options").toString()).contains("\"ro\"");
        assertThat(s.mount(node.runDir().resolve("blue/pipe").toString())).as("the pipe directory, as with every strategy").isNotNull();
        assertThat(s.report().get("dev.nvidia").split(" ")).containsExactlyInAnyOrder("nvidia" + gpu, "nvidiactl", "nvidia-uvm");
        assertThat(s.report().get("driver.libcuda.mount")).startsWith("ro");
        assertThat(s.report().get("driver.smi")).isEqualTo(FakeDriverTree.SMI_SAYS);
        System.out.printf("e2e/node: device-specs: containerd got %s and %d driver mounts; the container saw /dev/%s, libcuda.so.1 %s%n",
                s.devices(), s.spec().path("mounts").size(), s.report().get("dev.nvidia"), s.report().get("driver.libcuda.mount"));
    }

    @Test void cdi_specWrittenAndTheGpuNamed_containerd16InjectsNothing(RealNode node) throws Exception {
        new PodOps(node).deleteAll();
        restart(node, "cdi");
        Seen s = run(node, "strategy-cdi");
        String uuid = TestPods.bookedUuids(s.pod());
        JsonNode cdi = new ObjectMapper().readTree(Files.readString(node.cdiSpecDir().resolve("mpshare.io-gpu.json")));
        assertThat(cdi.path("kind").asText()).isEqualTo("mpshare.io/gpu");
        List<String> names = new ArrayList<>();
        cdi.path("devices").forEach(d -> names.add(d.path("name").asText()));
        assertThat(names).contains(uuid).hasSize(RealNode.GPUS);
        assertThat(s.env()).contains(Names.ENV_VISIBLE_DEVICES + "=" + uuid);
        // containerd 1.6 predates CDI: kubelet passes the CDI device, the runtime adds nothing (containerd 1.7+ and CRI-O inject it)
        assertThat(s.devices()).noneMatch(d -> d.startsWith("/dev/nvidia"));
        assertThat(s.mount(FakeDriverTree.LIB_DIR + "/libcuda.so.1")).isNull();
        assertThat(s.mount(node.runDir().resolve("blue/pipe").toString())).isNotNull();
    }

    @Test void envvar_onlyTheEnvForNvidiasRuntime(RealNode node) throws Exception {
        new PodOps(node).deleteAll();
        restart(node, "envvar");
        Seen s = run(node, "strategy-envvar");
        assertThat(s.env()).contains(Names.ENV_VISIBLE_DEVICES + "=" + TestPods.bookedUuids(s.pod()));
        assertThat(s.devices()).noneMatch(d -> d.startsWith("/dev/nvidia"));
        assertThat(s.mount(FakeDriverTree.LIB_DIR + "/libcuda.so.1")).isNull();
        assertThat(s.mount(node.runDir().resolve("blue/pipe").toString())).isNotNull();
        assertThat(s.report().get("dev.nvidia")).isBlank();
    }

}
