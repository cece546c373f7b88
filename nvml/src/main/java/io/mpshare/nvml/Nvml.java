package io.mpshare.nvml;

import java.util.List;

/**
 * The part of NVML mpshare uses. {@code FfmNvml} calls libnvidia-ml.so.1 through java.lang.foreign;
 * {@code FakeNvml} is programmable for tests. Every method may throw {@link NvmlException}.
 */
public interface Nvml extends AutoCloseable {
    String driverVersion();

    int deviceCount();

    /** Static facts and memory of device {@code index}. */
    DeviceInfo device(int index);

    /** All compute processes on the device (MPS clients and the MPS server itself included), host PIDs. */
    List<GpuProcess> computeProcesses(int index);

    /** Only the MPS clients on the device, host PIDs, with the memory each uses. */
    List<GpuProcess> mpsClients(int index);

    /**
     * Critical Xid events seen since the last call (non-blocking; empty when none or unsupported).
     * Critical means the GPU needs attention (e.g. Xid 48, 63, 64, 74, 79, 94, 95); application
     * errors such as 13, 31, 43, 45, 68 are filtered out.
     */
    List<XidEvent> drainCriticalXids();

    /**
     * Every Xid event seen since the last call, application errors included (a client's illegal memory access is Xid 31,
     * a graphics engine exception Xid 13): what the MPS supervisor's fault detector reads. It drains the same events as
     * {@link #drainCriticalXids}, so a process uses one or the other. Implementations that cannot report them throw.
     */
    default List<XidEvent> drainXids() { throw new NvmlException("drainXids is not supported by " + getClass().getSimpleName()); }

    @Override void close();

    /** @param minor /dev/nvidia{minor}; @param pciBusId like 00000000:19:00.0 */
    record DeviceInfo(int index, String uuid, String name, int minor, String pciBusId, long totalMib, long usedMib) {}

    record GpuProcess(long pid, long usedMib) {}

    record XidEvent(int deviceIndex, String uuid, long xid) {}
}
