package io.mpshare.deviceplugin.allocation;

import io.mpshare.core.MemoryUnit;
import io.mpshare.core.Names;
import io.mpshare.core.isolation.MpsLimits;
import io.mpshare.core.ledger.Allocation;
import io.mpshare.core.model.ContainerShare;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;

/**
 * The env and mounts a GPU container gets (docs/device-plugin.md lists them): the isolation variables of
 * {@link MpsLimits#clientEnv} — {@code NVIDIA_VISIBLE_DEVICES} (UUIDs, so ordinals inside the container follow the
 * allocation's order), {@code CUDA_MPS_PIPE_DIRECTORY} (the active generation's pipe directory, mounted read-only:
 * FACTS.md shows a client works through a read-only bind), {@code CUDA_MPS_PINNED_DEVICE_MEM_LIMIT} (the units kubelet
 * gave on each GPU + context reserve, per visible ordinal), {@code CUDA_MPS_ACTIVE_THREAD_PERCENTAGE} when a core share
 * was asked — and informational {@code MPSHARE_*} and ACK {@code ALIYUN_COM_GPU_MEM_*} variables.
 */
public final class AnswerBuilder {
    public static final String ENV_POD = "MPSHARE_POD";
    public static final String ENV_POD_UID = "MPSHARE_POD_UID";
    public static final String ENV_CONTAINER = "MPSHARE_CONTAINER";
    public static final String ENV_GPU_INDEX = "MPSHARE_GPU_INDEX";
    public static final String ENV_MEM_MIB = "MPSHARE_GPU_MEM_MIB";
    public static final String ENV_RESERVE_MIB = "MPSHARE_CONTEXT_RESERVE_MIB";
    public static final String ENV_GENERATION = "MPSHARE_MPS_GENERATION";
    public static final String DEV_SHM = "/dev/shm";

    private final Path runDir;
    private final boolean mountDevShm;
    private final MemoryUnit unit;
    private final GpuAccess access;

    /**
     * @param runDir      host folder of the MPS generations ({@link Names#RUN_DIR})
     * @param mountDevShm for drivers that need /dev/shm shared
     * @param access      how the container reaches its GPUs (the device list strategy), applied to every answer last
     */
    public AnswerBuilder(Path runDir, boolean mountDevShm, MemoryUnit unit, GpuAccess access) {
        this.runDir = runDir;
        this.mountDevShm = mountDevShm;
        this.unit = unit;
        this.access = access;
    }

    /** With the NVIDIA runtime's access ({@link GpuAccess#NVIDIA_RUNTIME}). */
    public AnswerBuilder(Path runDir, boolean mountDevShm, MemoryUnit unit) {
        this(runDir, mountDevShm, unit, GpuAccess.NVIDIA_RUNTIME);
    }

    public Path pipeDir(String colour) { return runDir.resolve(colour).resolve("pipe"); }

    /**
     * The answer for a container whose devices kubelet chose as {@code ids}: GPUs and caps come from the IDs (units on
     * each GPU + the pod's context reserve), so a container never gets more than kubelet counted for it; the pod
     * {@code a} and its container {@code c} give only the reserve, the core share and the names.
     */
    public Grant build(Allocation a, ContainerShare c, IdShape ids, String colour) {
        long reserve = a.demand().reserveMib();
        var perGpu = new ArrayList<Long>();
        for (long units : ids.units()) perGpu.add(unit.toMib(units));
        String pipe = pipeDir(colour).toString();
        String indices = join(ids.gpuIndices());
        var env = new LinkedHashMap<>(MpsLimits.clientEnv(ids.gpuUuids(), MpsLimits.clientCapsMib(ids.units(), unit, reserve), c.corePerGpu(), pipe));
        env.put(ENV_POD, a.pod().toString());
        env.put(ENV_POD_UID, a.podUid());
        env.put(ENV_CONTAINER, c.name());
        env.put(ENV_GPU_INDEX, indices);
        env.put(ENV_MEM_MIB, perGpu.stream().distinct().count() == 1 ? Long.toString(perGpu.getFirst()) : joinLongs(perGpu));
        env.put(ENV_RESERVE_MIB, Long.toString(reserve));
        env.put(ENV_GENERATION, colour);
        env.put(Names.ACK_GPU_MEM_IDX, indices);
        env.put(Names.ACK_GPU_MEM_POD, Long.toString(unit.fromMib(a.demand().requestedMib())));
        var mounts = new ArrayList<Grant.Mount>();
        mounts.add(new Grant.Mount(pipe, pipe, true));
        if (mountDevShm) mounts.add(new Grant.Mount(DEV_SHM, DEV_SHM, false));
        return access.apply(new Grant(env, mounts), ids);
    }

    private static String joinLongs(List<Long> xs) {
        StringBuilder sb = new StringBuilder();
        for (long x : xs) { if (!sb.isEmpty()) sb.append(','); sb.append(x); }
        return sb.toString();
    }

    private static String join(List<Integer> xs) {
        StringBuilder sb = new StringBuilder();
        for (int x : xs) { if (!sb.isEmpty()) sb.append(','); sb.append(x); }
        return sb.toString();
    }
}
