package io.mpshare.nvml.fake;

import io.mpshare.nvml.Nvml;
import io.mpshare.nvml.NvmlException;
import io.mpshare.nvml.Xids;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;

/**
 * A programmable {@link Nvml}: devices, processes per device (MPS clients or not, each with its used
 * MiB), usage changes, Xid injection and injected failures per call. Thread-safe (every method is
 * synchronized), so a test can change usage while a sampler reads.
 *
 * <pre>{@code
 * FakeNvml nvml = new FakeNvml().addH200().addH200();
 * nvml.startMpsClient(0, 4242, 612);          // an MPS client using 612 MiB on GPU 0
 * nvml.setUsed(0, 4242, 3000);                // it grows
 * nvml.injectXid(1, 79);                      // GPU 1 fell off the bus
 * nvml.failNext("mpsClients", 15, "GPU is lost");
 * }</pre>
 *
 * Like the real NVML, {@link #computeProcesses} lists MPS clients and plain compute processes;
 * {@link #mpsClients} lists only the MPS clients. The device's used memory is a base plus the sum of
 * its processes. Call names for {@link #failNext} are the interface's method names.
 */
public final class FakeNvml implements Nvml {
    public static final long H200_MIB = 143_771;

    private record Device(String uuid, String name, int minor, String pciBusId, long totalMib, long baseUsedMib) {}

    private record Proc(long pid, long usedMib, boolean mps) {}

    private final List<Device> devices = new ArrayList<>();
    private final Map<Integer, Map<Long, Proc>> processes = new HashMap<>();
    private final Queue<XidEvent> xids = new ArrayDeque<>();
    private final Map<String, Queue<NvmlException>> failures = new HashMap<>();
    private final Map<String, Integer> calls = new HashMap<>();
    private String driverVersion = "580.159.04";
    private boolean closed;

    public synchronized FakeNvml driverVersion(String v) { driverVersion = v; return this; }

    /** Adds a device with the next index; its UUID is {@code GPU-fake-<index>}. */
    public synchronized FakeNvml addDevice(String name, long totalMib) {
        int i = devices.size();
        devices.add(new Device("GPU-fake-" + i, name, i, String.format("00000000:%02X:00.0", 0x19 + i), totalMib, 0));
        processes.put(i, new LinkedHashMap<>());
        return this;
    }

    public FakeNvml addH200() { return addDevice("NVIDIA H200", H200_MIB); }

    public synchronized FakeNvml addDevice(String uuid, String name, long totalMib) {
        int i = devices.size();
        devices.add(new Device(uuid, name, i, String.format("00000000:%02X:00.0", 0x19 + i), totalMib, 0));
        processes.put(i, new LinkedHashMap<>());
        return this;
    }

    /** An MPS client process on {@code device} using {@code usedMib}. */
    public synchronized FakeNvml startMpsClient(int device, long pid, long usedMib) { return put(device, pid, usedMib, true); }

    /** A compute process that is not an MPS client (or the MPS server itself). */
    public synchronized FakeNvml startProcess(int device, long pid, long usedMib) { return put(device, pid, usedMib, false); }

    /** Changes what a running process uses. */
    public synchronized FakeNvml setUsed(int device, long pid, long usedMib) {
        Proc p = procs(device).get(pid);
        if (p == null) throw new IllegalArgumentException("no process " + pid + " on GPU " + device);
        procs(device).put(pid, new Proc(pid, usedMib, p.mps()));
        return this;
    }

    public synchronized FakeNvml stopProcess(int device, long pid) { procs(device).remove(pid); return this; }

    /** Memory used on the device besides its processes (e.g. the driver's own). */
    public synchronized FakeNvml setBaseUsed(int device, long mib) {
        Device d = dev(device);
        devices.set(device, new Device(d.uuid(), d.name(), d.minor(), d.pciBusId(), d.totalMib(), mib));
        return this;
    }

    /** Queues an Xid on {@code device}; application Xids (e.g. 13, 31, 43) are queued too: {@link #drainXids} returns them, {@link #drainCriticalXids} filters them out. */
    public synchronized FakeNvml injectXid(int device, long xid) {
        xids.add(new XidEvent(device, dev(device).uuid(), xid));
        return this;
    }

    /** The next call of {@code method} (e.g. "mpsClients", "device", "drainCriticalXids") throws an NvmlException with {@code code}. */
    public synchronized FakeNvml failNext(String method, int code, String nvmlError) {
        failures.computeIfAbsent(method, k -> new ArrayDeque<>()).add(new NvmlException(method, code, nvmlError));
        return this;
    }

    /** How often {@code method} was called. */
    public synchronized int calls(String method) { return calls.getOrDefault(method, 0); }

    public synchronized boolean closed() { return closed; }

    @Override public synchronized String driverVersion() { enter("driverVersion"); return driverVersion; }

    @Override public synchronized int deviceCount() { enter("deviceCount"); return devices.size(); }

    @Override public synchronized DeviceInfo device(int index) {
        enter("device");
        Device d = dev(index);
        long used = d.baseUsedMib() + procs(index).values().stream().mapToLong(p -> Math.max(0, p.usedMib())).sum();
        return new DeviceInfo(index, d.uuid(), d.name(), d.minor(), d.pciBusId(), d.totalMib(), used);
    }

    @Override public synchronized List<GpuProcess> computeProcesses(int index) {
        enter("computeProcesses");
        return procs(index).values().stream().map(p -> new GpuProcess(p.pid(), p.usedMib())).toList();
    }

    @Override public synchronized List<GpuProcess> mpsClients(int index) {
        enter("mpsClients");
        return procs(index).values().stream().filter(Proc::mps).map(p -> new GpuProcess(p.pid(), p.usedMib())).toList();
    }

    @Override public synchronized List<XidEvent> drainCriticalXids() {
        enter("drainCriticalXids");
        List<XidEvent> out = xids.stream().filter(x -> Xids.isCritical(x.xid())).toList();
        xids.clear();
        return out;
    }

    @Override public synchronized List<XidEvent> drainXids() {
        enter("drainXids");
        List<XidEvent> out = List.copyOf(xids);
        xids.clear();
        return out;
    }

    @Override public synchronized void close() { closed = true; }

    private FakeNvml put(int device, long pid, long usedMib, boolean mps) {
        procs(device).put(pid, new Proc(pid, usedMib, mps));
        return this;
    }

    private void enter(String method) {
        calls.merge(method, 1, Integer::sum);
        if (closed) throw new NvmlException(method, 1, "Uninitialized");
        Queue<NvmlException> q = failures.get(method);
        if (q != null && !q.isEmpty()) throw q.remove();
    }

    private Device dev(int index) {
        if (index < 0 || index >= devices.size()) throw new NvmlException("device", 2, "Invalid Argument");
        return devices.get(index);
    }

    private Map<Long, Proc> procs(int index) {
        dev(index);
        return processes.get(index);
    }
}
