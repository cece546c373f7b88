package io.mpshare.policing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** A fake {@code /proc} tree: per PID a {@code cgroup} file and a {@code cmdline}. */
final class FakeProc {
    final Path root;

    FakeProc(Path root) { this.root = root; }

    /** A pod's container process, cgroup v2 + systemd driver + containerd. */
    FakeProc podProcess(long pid, String podUid, String containerId) {
        return process(pid, "0::/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod" + podUid.replace('-', '_')
                + ".slice/cri-containerd-" + containerId + ".scope\n", "python3\0train.py\0");
    }

    FakeProc hostProcess(long pid, String argv0) {
        return process(pid, "0::/user.slice/user-1000.slice/session-3.scope\n", argv0 + "\0");
    }

    FakeProc process(long pid, String cgroup, String cmdline) {
        try {
            Path dir = Files.createDirectories(root.resolve(Long.toString(pid)));
            Files.writeString(dir.resolve("cgroup"), cgroup);
            Files.writeString(dir.resolve("cmdline"), cmdline);
            return this;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
