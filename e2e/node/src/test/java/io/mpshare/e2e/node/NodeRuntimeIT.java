package io.mpshare.e2e.node;

import io.mpshare.testing.Waits;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The node's parts without a cluster: the images made here, containerd with the tier's settings, and a standalone
 * kubelet running a static pod from them; then close puts the machine back (no process, mount or sysctl left).
 */
@Order(0) // before any scenario starts the shared node: one kubelet per machine
class NodeRuntimeIT {
    @Test void staticPod_runsFromLocalImages_andCloseLeavesNothing(@TempDir Path tmp) throws Exception {
        NodeTier tier = NodeTier.requireOrSkip();
        Path dir = tmp.resolve("node");
        Path out = tmp.resolve("out");
        Files.createDirectories(out);
        var before = Host.readSysctls();
        var podCgroupsBefore = Host.kubepodsDirs(); // an earlier kubelet's are left as they were
        Path containerdSocket;
        try (NodeRuntime node = NodeRuntime.start(tier, dir)) {
            containerdSocket = node.containerd().socket();
            Kubelet k = node.startKubelet("e2e-standalone", List.of(), Optional.empty());
            Files.writeString(k.staticPods().resolve("hello.yaml"), """
                    apiVersion: v1
                    kind: Pod
                    metadata: {name: hello, namespace: default}
                    spec:
                      hostNetwork: true
                      restartPolicy: Never
                      containers:
                      - name: c
                        image: %s
                        imagePullPolicy: Never
                        command: ["/bin/sh", "-c", "echo pid1=$(tr '\\\\0' ' ' < /proc/1/cmdline) > /out/seen.tmp && mv /out/seen.tmp /out/seen"]
                        volumeMounts: [{name: out, mountPath: /out}]
                      volumes: [{name: out, hostPath: {path: %s}}]
                    """.formatted(TestImages.SHELL, out));
            Path seen = out.resolve("seen");
            Waits.until(Duration.ofSeconds(60), () -> Files.exists(seen), () -> "static pod wrote nothing; kubelet log:\n" + k.daemon().tail(30));
            assertThat(Files.readString(seen)).startsWith("pid1=/bin/sh -c");
            // kubelet ensures these two at start; a machine may already have them, so the check is on the values
            assertThat(Host.readSysctls()).as("kubelet's sysctls while it runs")
                    .containsEntry("vm/overcommit_memory", "1").containsEntry("kernel/panic_on_oops", "1");
        }
        assertThat(Host.pidsWithArg(containerdSocket.toString())).as("shims or containerd left running").isEmpty();
        assertThat(Files.readString(Path.of("/proc/self/mountinfo"))).as("mounts left").doesNotContain(dir.toString());
        assertThat(Host.readSysctls()).isEqualTo(before);
        assertThat(Host.kubepodsDirs()).as("pod cgroups left").isEqualTo(podCgroupsBefore);
    }
}
