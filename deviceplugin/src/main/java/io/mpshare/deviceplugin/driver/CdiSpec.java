package io.mpshare.deviceplugin.driver;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The node's GPUs as a Container Device Interface spec (CDI 0.6.0, JSON), for runtimes that inject CDI devices
 * (containerd 1.7+, CRI-O): kind {@link #KIND}, one device per GPU named by its UUID with its own device node, and
 * the edits every GPU container needs once (control nodes, the driver's files bound read-only) at the spec's top
 * level. A container given {@code mpshare.io/gpu=GPU-...} gets exactly what the device-specs strategy would answer.
 * {@link #write} replaces the file atomically (a rename in its folder), so a runtime never reads half a spec.
 */
public final class CdiSpec {
    public static final String KIND = "mpshare.io/gpu";
    public static final String VERSION = "0.6.0";
    public static final String FILE = "mpshare.io-gpu.json";
    private static final List<String> MOUNT_OPTIONS = List.of("ro", "nosuid", "nodev", "bind");

    private CdiSpec() {}

    /** The qualified name a container's Allocate answer carries for the GPU of this UUID. */
    public static String deviceName(String uuid) { return KIND + "=" + uuid; }

    /** The spec's JSON for the GPUs ({@code uuid -> NVML index}) and the driver's files. */
    public static String json(Map<String, Integer> indexByUuid, DriverFiles driver) {
        var devices = new ArrayList<String>();
        for (var e : new TreeMap<>(indexByUuid).entrySet())
            devices.add("{\"name\":" + str(e.getKey()) + ",\"containerEdits\":{\"deviceNodes\":[" + node(driver.nodesFor(List.of(e.getValue())).getFirst()) + "]}}");
        var nodes = driver.controlNodes().stream().map(CdiSpec::node).toList();
        var mounts = driver.binds().stream().map(b -> "{\"hostPath\":" + str(b.hostPath()) + ",\"containerPath\":" + str(b.containerPath())
                + ",\"options\":[" + String.join(",", MOUNT_OPTIONS.stream().map(CdiSpec::str).toList()) + "]}").toList();
        return "{\"cdiVersion\":" + str(VERSION) + ",\"kind\":" + str(KIND) + ",\"devices\":[" + String.join(",", devices) + "],"
                + "\"containerEdits\":{\"deviceNodes\":[" + String.join(",", nodes) + "],\"mounts\":[" + String.join(",", mounts) + "]}}\n";
    }

    /** Writes the spec to {@code dir/}{@link #FILE}, replacing the old one in one rename. */
    public static Path write(Path dir, String json) throws IOException {
        Files.createDirectories(dir);
        Path tmp = Files.createTempFile(dir, ".mpshare-cdi-", ".tmp");
        try {
            Files.writeString(tmp, json, StandardCharsets.UTF_8);
            return Files.move(tmp, dir.resolve(FILE), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } finally {
            Files.deleteIfExists(tmp);
        }
    }

    private static String node(DeviceNode n) {
        return "{\"path\":" + str(n.containerPath()) + ",\"hostPath\":" + str(n.hostPath()) + "}";
    }

    static String str(String s) {
        var sb = new StringBuilder("\"");
        for (char c : s.toCharArray()) {
            switch (c) {
                case '"' -> sb.append("\\\"");
                case '\\' -> sb.append("\\\\");
                default -> {
                    if (c < 0x20) sb.append(String.format("\\u%04x", (int) c));
                    else sb.append(c);
                }
            }
        }
        return sb.append('"').toString();
    }
}
