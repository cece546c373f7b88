package io.mpshare.deviceplugin.driver;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * What a container needs of the running driver to use a GPU without NVIDIA's container toolkit, as
 * {@link DriverDiscovery} found it: the driver version's libraries (each at its file name and at every name the
 * installer linked to it, such as the soname {@code libcuda.so.1}), its utilities ({@code nvidia-smi},
 * {@code nvidia-cuda-mps-control}...), its firmware folder, and the device nodes: the control nodes every container
 * gets ({@code nvidiactl}, {@code nvidia-uvm}...) and one {@code nvidia<minor>} per GPU, by NVML index.
 */
public record DriverFiles(String version, List<Bind> libraries, List<Bind> utilities, List<Bind> firmware,
                          List<DeviceNode> controlNodes, Map<Integer, DeviceNode> gpuNodes) {
    public DriverFiles {
        Objects.requireNonNull(version, "version");
        libraries = List.copyOf(libraries);
        utilities = List.copyOf(utilities);
        firmware = List.copyOf(firmware);
        controlNodes = List.copyOf(controlNodes);
        gpuNodes = Map.copyOf(gpuNodes);
    }

    /** Every read-only bind, libraries first. */
    public List<Bind> binds() {
        var out = new ArrayList<Bind>(libraries);
        out.addAll(utilities);
        out.addAll(firmware);
        return List.copyOf(out);
    }

    /** The device nodes of a container on these GPUs (NVML indices): the GPUs' own, then the control nodes. */
    public List<DeviceNode> nodesFor(List<Integer> gpuIndices) {
        var out = new ArrayList<DeviceNode>();
        for (int i : gpuIndices) {
            DeviceNode n = gpuNodes.get(i);
            if (n == null) throw new IllegalArgumentException("no device node known for GPU " + i + " (known: " + gpuNodes.keySet() + ")");
            out.add(n);
        }
        out.addAll(controlNodes);
        return List.copyOf(out);
    }
}
