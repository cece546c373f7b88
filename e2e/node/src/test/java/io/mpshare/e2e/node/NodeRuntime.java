package io.mpshare.e2e.node;

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
    static final Path CONTAINERD_RUN = Path.of("/run/containerd");

    private final NodeTier tier;
    private final Path dir;
    private final Map<String, String> sysctls;
    private final boolean hadPodCgroups;
    private final List<Path> pluginSocketsBefore;
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
        this.hadContainerdRun = Files.exists(CONTAINERD_RUN);
        this.hook = new Thread(this::closeQuietly, "e2e-node-cleanup");
        Runtime.getRuntime().addShutdownHook(hook);
    }

    static NodeRuntime start(NodeTier tier, Path dir) throws IOException, InterruptedException {
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
        if (kubelet != null) {
            kubelet.stop();
            Files.deleteIfExists(PLUGIN_DIR.resolve("kubelet.sock")); // kubelet leaves it; one kubelet per machine: ours
        }
        int killed = Host.killPodProcesses();
        if (killed > 0) Thread.sleep(200); // let the kernel reap them before the shims go (no event to wait on)
        if (containerd != null) containerd.close();
        if (kubelet != null) kubelet.close();
        Host.unmountUnder(dir);
        if (!hadPodCgroups) Host.removePodCgroups();
        Host.writeSysctls(sysctls);
        for (Path s : sockets()) if (!pluginSocketsBefore.contains(s)) Files.deleteIfExists(s);
        if (!hadContainerdRun) removeEmptyTree(CONTAINERD_RUN);
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
