package io.mpshare.e2e.node;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;

/**
 * A driver tree laid out as the GPU machine's (docs/gpu-results.md): {@code usr/local/nvidia/lib64} with the driver
 * version's libraries and their soname links, {@code usr/local/nvidia/bin/nvidia-smi} (a script that says it is fake),
 * and {@code dev/} with the node's device nodes, made with {@code mknod} as character devices 1:3 (what
 * {@code /dev/null} is), so that containerd sees real device nodes and a container that opens one reads nothing.
 * The device plugin runs on it with {@code --device-list-strategy=device-specs --driver-root --dev-root}.
 */
final class FakeDriverTree {
    static final String VERSION = "580.159.04"; // FakeNvml's driver version
    static final String LIB_DIR = "/usr/local/nvidia/lib64";
    static final String SMI = "/usr/local/nvidia/bin/nvidia-smi";
    static final String SMI_SAYS = "fake nvidia-smi of the e2e/node driver tree";

    private FakeDriverTree() {}

    /** The tree under {@code root}, with device nodes for GPUs of minor 0 .. gpus-1 (FakeNvml's minors are its indices). */
    static Path write(Path root, int gpus) throws IOException, InterruptedException {
        Path lib = root.resolve(LIB_DIR.substring(1));
        Files.createDirectories(lib);
        for (String name : List.of("libcuda", "libnvidia-ml", "libnvidia-ptxjitcompiler")) {
            Files.writeString(lib.resolve(name + ".so." + VERSION), "fake " + name + "\n");
            Files.createSymbolicLink(lib.resolve(name + ".so.1"), Path.of(name + ".so." + VERSION));
        }
        Path smi = root.resolve(SMI.substring(1));
        Files.createDirectories(smi.getParent());
        Files.writeString(smi, "#!/bin/sh\necho '" + SMI_SAYS + "'\n");
        Files.setPosixFilePermissions(smi, PosixFilePermissions.fromString("rwxr-xr-x"));
        Files.createDirectories(root.resolve("dev"));
        for (int i = 0; i < gpus; i++) mknod(root.resolve("dev/nvidia" + i));
        for (String n : List.of("nvidiactl", "nvidia-uvm")) mknod(root.resolve("dev/" + n));
        return root;
    }

    private static void mknod(Path p) throws IOException, InterruptedException {
        Host.run(List.of("mknod", "-m", "666", p.toString(), "c", "1", "3"), 10);
    }
}
