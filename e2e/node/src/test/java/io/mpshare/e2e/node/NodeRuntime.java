package io.mpshare.e2e.node;

import io.mpshare.deviceplugin.DevicePluginPreflight;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * containerd with the tier's images, and the kubelet on it, plus what they change on the machine. Start saves
 * kubelet's sysctls; {@link #close} puts everything back in order: kubelet stopped, every process in its pod cgroups
 * killed, containerd's shims and containerd stopped, mounts under the folder undone, kubelet's pod cgroups removed
 * (when they were not there before), the sysctls restored, kubelet's and our sockets in the fixed device-plugin folder
 * removed. A JVM shutdown hook runs the same close if the test JVM is ended early.
 */
final class NodeRuntime implements AutoCloseable {
    /** Fixed in kubelet whatever --root-dir says. */
    static final Path PLUGIN_DIR = Path.of(io.mpshare.core.Names.DEVICE_PLUGIN_DIR);
    /** The device plugin's lock file (it stays after the plugin ends, by design). */
    static final Path PLUGIN_LOCK = PLUGIN_DIR.resolve(DevicePluginPreflight.LOCK);
    static final Path CONTAINERD_RUN = Path.of("/run/containerd");

    private final NodeTier tier;
    private final Path dir;
    private final Map<String, String> sysctls;
    private final boolean hadPodCgroups;
    private final List<Path> pluginSocketsBefore;
    private final boolean hadPluginLock;
    private final boolean hadContainerdRun;
    private final Thread hook;
    private Containerd containerd;
    private Kubelet kubelet;
    private TestImages.Archives images;
    private boolean closed;

    private NodeRuntime(NodeTier tier, Path dir) throws IOException {
        this.tier = tier;
        this.dir = dir;
        this.sysctls = Host.readSysctls();
        this.hadPodCgroups = !Host.kubepodsDirs().isEmpty();
        this.pluginSocketsBefore = sockets();
        this.hadPluginLock = Files.exists(PLUGIN_LOCK);
        this.hadContainerdRun = Files.exists(CONTAINERD_RUN);
        this.hook = new Thread(this::closeQuietly, "e2e-node-cleanup");
        Runtime.getRuntime().addShutdownHook(hook);
    }

    static NodeRuntime start(NodeTier tier, Path dir) throws IOException, InterruptedException {
        removeKubeletFiles(); // a previous run's checkpoint would hand the new kubelet its pods' devices
        NodeRuntime r = new NodeRuntime(tier, dir);
        try {
            r.images = TestImages.write(dir.resolve("images"));
            r.containerd = Containerd.start(dir.resolve("containerd"), tier.cniBin(), TestImages.PAUSE);
            r.containerd.importImage(r.images.pause());
            r.containerd.importImage(r.images.shell());
            return r;
        } catch (IOException | RuntimeException | InterruptedException e) {
            r.close();
            throw e;
        }
    }

    Kubelet startKubelet(String nodeName, List<String> labels, Optional<Kubelet.ApiAccess> api) throws IOException {
        if (kubelet != null) throw new IllegalStateException("one kubelet per machine: " + kubelet + " runs");
        kubelet = new Kubelet(tier.kubelet(), dir.resolve("kubelet"), nodeName, labels, api, containerd.socket());
        kubelet.start();
        return kubelet;
    }

    Containerd containerd() { return containerd; }

    TestImages.Archives images() { return images; }

    Map<String, String> savedSysctls() { return sysctls; }

    @Override public synchronized void close() throws IOException, InterruptedException {
        if (closed) return;
        closed = true;
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException shuttingDown) {
            // called from the hook itself
        }
        Steps steps = new Steps();
        if (kubelet != null) {
            steps.run("stop kubelet", kubelet::stop);
            steps.run("remove kubelet.sock and its checkpoint", NodeRuntime::removeKubeletFiles);
        }
        steps.run("kill pod processes", () -> {
            for (int pass = 0; pass < 20 && Host.killPodProcesses() > 0; pass++) Thread.sleep(100); // until the kernel has reaped them
        });
        if (containerd != null) steps.run("stop containerd", containerd::close);
        if (kubelet != null) steps.run("unmount kubelet's root", kubelet::close);
        steps.run("unmount " + dir, () -> Host.unmountUnder(dir));
        if (!hadPodCgroups) steps.run("remove pod cgroups", Host::removePodCgroups);
        steps.run("restore sysctls " + sysctls, () -> Host.writeSysctls(sysctls));
        steps.run("remove plugin sockets", () -> {
            for (Path s : sockets()) if (!pluginSocketsBefore.contains(s)) Files.deleteIfExists(s);
        });
        if (!hadPluginLock) steps.run("remove the device plugin's lock", () -> {
            Files.deleteIfExists(PLUGIN_LOCK);
            Files.deleteIfExists(PLUGIN_LOCK.getParent());
        });
        if (!hadContainerdRun) steps.run("remove " + CONTAINERD_RUN, () -> removeEmptyTree(CONTAINERD_RUN));
        steps.rethrow();
    }

    /** Clean-up steps that all run even when one fails; the first failure is thrown at the end, the others logged. */
    static final class Steps {
        interface Step { void run() throws Exception; }

        private Exception first;

        void run(String what, Step step) {
            try {
                step.run();
            } catch (Exception e) {
                System.err.println("e2e/node: clean-up step '" + what + "' failed: " + e);
                if (first == null) first = e;
            }
        }

        void rethrow() throws IOException {
            if (first != null) throw new IOException("clean-up incomplete: " + first.getMessage(), first);
        }
    }

    /**
     * kubelet keeps its registration socket and its device manager's checkpoint ({@code kubelet_internal_checkpoint}:
     * which pod holds which device IDs) in the fixed device-plugin folder, whatever {@code --root-dir} says, and
     * leaves both on exit. One kubelet per machine, and it is ours: both go.
     */
    private static void removeKubeletFiles() throws IOException {
        Files.deleteIfExists(PLUGIN_DIR.resolve("kubelet.sock"));
        Files.deleteIfExists(PLUGIN_DIR.resolve("kubelet_internal_checkpoint"));
    }

    /** The shims' socket folder ({@code /run/containerd/s}) is fixed in containerd 1.6 whatever its state folder is. */
    private static void removeEmptyTree(Path top) throws IOException {
        if (!Files.isDirectory(top)) return;
        try (var walk = Files.walk(top)) {
            for (Path d : walk.filter(Files::isDirectory).sorted(java.util.Comparator.reverseOrder()).toList()) {
                try {
                    Files.delete(d);
                } catch (java.nio.file.DirectoryNotEmptyException | java.nio.file.NoSuchFileException keep) {
                    // something of another containerd: leave it
                }
            }
        }
    }

    private void closeQuietly() {
        try {
            close();
        } catch (Exception e) {
            System.err.println("e2e/node: cleanup failed: " + e);
        }
    }

    private static List<Path> sockets() throws IOException {
        if (!Files.isDirectory(PLUGIN_DIR)) return List.of();
        try (var s = Files.list(PLUGIN_DIR)) {
            return new ArrayList<>(s.filter(p -> p.getFileName().toString().endsWith(".sock")).toList());
        }
    }
}
