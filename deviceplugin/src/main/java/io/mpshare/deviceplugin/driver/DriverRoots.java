package io.mpshare.deviceplugin.driver;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Objects;

/**
 * Where the NVIDIA driver's files and device nodes are: on the host, which is what kubelet binds into containers, and
 * where this process sees them (the same folders when it runs on the host; a mount of them when it runs in a pod).
 * A file seen at {@code seenDriverRoot/usr/lib/x/libcuda.so.1} is {@code hostDriverRoot/usr/lib/x/libcuda.so.1} on the
 * host and {@code /usr/lib/x/libcuda.so.1} in a container, as the driver's installer laid it out under its root.
 *
 * @param hostDriverRoot the driver's root on the host: {@code /} for a driver installed on the host, the driver
 *                       container's folder (such as {@code /run/nvidia/driver}) otherwise
 * @param seenDriverRoot where this process sees {@code hostDriverRoot}
 * @param hostDevRoot    the folder whose {@code dev/} holds the {@code nvidia*} device nodes on the host
 * @param seenDevRoot    where this process sees {@code hostDevRoot}
 */
public record DriverRoots(Path hostDriverRoot, Path seenDriverRoot, Path hostDevRoot, Path seenDevRoot) {
    public DriverRoots {
        Objects.requireNonNull(hostDriverRoot, "hostDriverRoot");
        Objects.requireNonNull(seenDriverRoot, "seenDriverRoot");
        Objects.requireNonNull(hostDevRoot, "hostDevRoot");
        Objects.requireNonNull(seenDevRoot, "seenDevRoot");
        if (!hostDriverRoot.isAbsolute() || !hostDevRoot.isAbsolute())
            throw new IllegalArgumentException("the driver and dev roots must be absolute paths on the host: " + hostDriverRoot + ", " + hostDevRoot);
    }

    /** Roots this process sees where the host has them. */
    public static DriverRoots onHost(Path driverRoot, Path devRoot) { return new DriverRoots(driverRoot, driverRoot, devRoot, devRoot); }

    /**
     * A path seen under the driver root, as a bind into the container at the same place under its root, of the file it
     * resolves to (links followed, as a bind mount follows them); null when that file lies outside the root.
     */
    Bind bind(Path seen) throws IOException {
        Path root = seenDriverRoot.toRealPath();
        Path target = seen.toRealPath();
        if (!target.startsWith(root)) return null;
        return new Bind(hostDriverRoot.resolve(root.relativize(target)).toString(), "/" + seenDriverRoot.relativize(seen));
    }

    /** The device node {@code dev/<name>} if this process sees it, with its host and container paths. */
    DeviceNode node(String name) {
        return new DeviceNode(hostDevRoot.resolve("dev").resolve(name).toString(), "/dev/" + name);
    }
}
