package io.mpshare.e2e.node;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.mpshare.core.Names;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Pods for the tier: the local busybox image ({@code imagePullPolicy: Never}), {@code hostNetwork: true} (no pod
 * network here), a hostPath folder mounted at {@code /out}. {@link #reporter} writes what the container saw — its
 * MPS and GPU env, the mount options of its pipe directory, whether it can write there — to {@code /out/<name>.txt}
 * and to its termination message, then sleeps (or exits, for a Job). No {@code kubectl logs/exec}: the node has no
 * address the API server could proxy to.
 */
final class TestPods {
    private TestPods() {}

    /** The report script; {@code keepRunning}: sleep after reporting (else exit 0). */
    static String reportScript(String name, boolean keepRunning) {
        String f = "/out/" + name;
        return "{ env | grep -E '^(CUDA_|NVIDIA_|MPSHARE_|ALIYUN_)' | sort; "
                + "echo \"pipe.mount=$(grep \" $CUDA_MPS_PIPE_DIRECTORY \" /proc/mounts | cut -d' ' -f4)\"; "
                + "if touch \"$CUDA_MPS_PIPE_DIRECTORY/.probe\" 2>/dev/null; then echo pipe.write=allowed; else echo pipe.write=refused; fi; "
                + "echo \"dev.nvidia=$(ls /dev | grep '^nvidia' | tr '\\n' ' ')\"; "
                + "echo \"driver.libcuda.mount=$(grep ' " + FakeDriverTree.LIB_DIR + "/libcuda.so.1 ' /proc/mounts | cut -d' ' -f4)\"; "
                + "echo \"driver.smi=$(" + FakeDriverTree.SMI + " 2>&1)\"; "
                + "} > " + f + ".tmp && mv " + f + ".tmp " + f + ".txt; cat " + f + ".txt > /dev/termination-log; "
                + (keepRunning ? "exec sleep 2147483647" : "exit 0");
    }

    /** A pod asking {@code gib} of gpu-mem, placed by {@code scheduler}, that reports and keeps running. */
    static Pod reporter(String name, int gib, String scheduler, Path out) {
        return new PodBuilder().withNewMetadata().withName(name).withNamespace("default").endMetadata()
                .withNewSpec().withSchedulerName(scheduler).withHostNetwork(true).withRestartPolicy("Never")
                .withTerminationGracePeriodSeconds(0L)
                .addNewContainer().withName("main").withImage(TestImages.SHELL).withImagePullPolicy("Never")
                .withCommand("/bin/sh", "-c", reportScript(name, true))
                .withNewResources().addToLimits(Names.RESOURCE_GPU_MEM, new Quantity(Integer.toString(gib))).endResources()
                .addNewVolumeMount().withName("out").withMountPath("/out").endVolumeMount()
                .endContainer()
                .addNewVolume().withName("out").withNewHostPath().withPath(out.toString()).withType("Directory").endHostPath().endVolume()
                .endSpec().build();
    }

    /** The {@code key=value} lines a reporter wrote, or empty while it has not. */
    static Map<String, String> report(Path out, String name) {
        Path f = out.resolve(name + ".txt");
        Map<String, String> m = new LinkedHashMap<>();
        try {
            if (!Files.exists(f)) return m;
            for (String line : Files.readAllLines(f)) {
                int eq = line.indexOf('=');
                if (eq > 0) m.put(line.substring(0, eq), line.substring(eq + 1));
            }
        } catch (IOException e) {
            return Map.of();
        }
        return m;
    }

    /** The CUDA context reserve (MiB per container per GPU) the pod's allocation booked ({@code reserve=} field), or -1. */
    static long reserveMib(Pod p) {
        String a = p.getMetadata().getAnnotations() == null ? null : p.getMetadata().getAnnotations().get(Names.ANN_ALLOCATION);
        if (a == null) return -1;
        for (String f : a.split(";")) if (f.startsWith("reserve=")) return Long.parseLong(f.substring("reserve=".length()));
        return -1;
    }

    /** The UUIDs of the GPUs the pod's {@code mpshare.io/allocation} books ({@code uuids=} field), or "" when none. */
    static String bookedUuids(Pod p) {
        String a = p.getMetadata().getAnnotations() == null ? null : p.getMetadata().getAnnotations().get(Names.ANN_ALLOCATION);
        if (a == null) return "";
        for (String f : a.split(";")) if (f.startsWith("uuids=")) return f.substring("uuids=".length());
        return "";
    }

    /** The NVML indices of the GPUs the pod's {@code mpshare.io/allocation} books ({@code gpus=} field), or "" when none. */
    static String bookedGpus(Pod p) {
        String a = p.getMetadata().getAnnotations() == null ? null : p.getMetadata().getAnnotations().get(Names.ANN_ALLOCATION);
        if (a == null) return "";
        for (String f : a.split(";")) if (f.startsWith("gpus=")) return f.substring("gpus=".length());
        return "";
    }

    /** The GPU UUID of one of our device IDs ({@code <gpu-uuid>-_-<n>}). */
    static String gpuOfDevice(String deviceId) {
        return io.mpshare.deviceplugin.devices.DeviceIds.gpuUuid(deviceId).orElse("not ours: " + deviceId);
    }
}
