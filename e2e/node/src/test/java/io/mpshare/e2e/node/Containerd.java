package io.mpshare.e2e.node;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * containerd 1.6 (Debian) for the tier, with its own root, state and socket under {@code dir}. Its CRI settings are
 * the ones this machine kind needs (../shared/k8s README, as measured): the local pause as {@code sandbox_image};
 * {@code restrict_oom_score_adj = true} (root lacks CAP_SYS_RESOURCE, so runc cannot set kubelet's -998);
 * cgroupfs ({@code SystemdCgroup = false}: systemd is not PID 1); a CNI config with only {@code loopback} (without
 * one the node stays NotReady; pods use {@code hostNetwork: true}). {@link #close} kills its shims (found by our
 * socket in their arguments), stops it and unmounts what it mounted.
 */
final class Containerd implements AutoCloseable {
    /** containerd finds runc (/usr/sbin) and kubelet finds mount and iptables on this PATH, whatever the test's is. */
    static final String SYSTEM_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";
    private final Path dir;
    private final Daemon daemon;

    private Containerd(Path dir, Daemon daemon) {
        this.dir = dir;
        this.daemon = daemon;
    }

    static Path socketIn(Path dir) { return dir.resolve("containerd.sock"); }

    static Containerd start(Path dir, Path cniBin, String sandboxImage) throws IOException, InterruptedException {
        Files.createDirectories(dir.resolve("cni"));
        Files.writeString(dir.resolve("cni/10-loopback.conflist"),
                "{\"cniVersion\":\"0.4.0\",\"name\":\"mpshare-e2e-loopback\",\"plugins\":[{\"type\":\"loopback\"}]}\n");
        Path config = dir.resolve("config.toml");
        Files.writeString(config, config(dir, cniBin, sandboxImage));
        Daemon d = Daemon.start("containerd", List.of("containerd", "--config", config.toString()), Map.of("PATH", SYSTEM_PATH), dir.resolve("containerd.log"));
        Containerd c = new Containerd(dir, d);
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (true) {
            try {
                c.ctr("version");
                return c;
            } catch (IOException notYet) {
                if (!d.alive() || System.nanoTime() > deadline) {
                    c.close();
                    throw new IllegalStateException("containerd did not start: " + d.tail(15));
                }
                Thread.sleep(100); // polling a process start: no clock to inject into containerd
            }
        }
    }

    static String config(Path dir, Path cniBin, String sandboxImage) {
        String cri = "[plugins.\"io.containerd.grpc.v1.cri\"";
        return """
                version = 2
                root = "%1$s/root"
                state = "%1$s/state"
                [grpc]
                  address = "%2$s"
                %3$s]
                  sandbox_image = "%4$s"
                  restrict_oom_score_adj = true
                  stream_server_address = "127.0.0.1"
                  stream_server_port = "0"
                %3$s.containerd]
                  snapshotter = "overlayfs"
                  default_runtime_name = "runc"
                %3$s.containerd.runtimes.runc]
                  runtime_type = "io.containerd.runc.v2"
                %3$s.containerd.runtimes.runc.options]
                  SystemdCgroup = false
                  Root = "%1$s/runc"
                %3$s.cni]
                  bin_dir = "%5$s"
                  conf_dir = "%1$s/cni"
                """.formatted(dir, socketIn(dir), cri, sandboxImage, cniBin);
    }

    Path socket() { return socketIn(dir); }

    Daemon daemon() { return daemon; }

    void importImage(Path archive) throws IOException, InterruptedException {
        ctr("images", "import", archive.toString());
    }

    String ctr(String... args) throws IOException, InterruptedException {
        var cmd = new java.util.ArrayList<>(List.of("ctr", "--address", socket().toString(), "--namespace", "k8s.io"));
        cmd.addAll(List.of(args));
        return Host.run(cmd, 60);
    }

    @Override public void close() throws IOException, InterruptedException {
        for (long shim : Host.pidsWithArg(socket().toString())) {
            if (shim != daemon.pid()) ProcessHandle.of(shim).ifPresent(ProcessHandle::destroyForcibly);
        }
        daemon.close();
        Host.unmountUnder(dir);
    }
}
