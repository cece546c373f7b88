package io.mpshare.policing;

import io.mpshare.nvml.Nvml;
import io.mpshare.nvml.NvmlException;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Test double for {@link Nvml} until the nvml module's FakeNvml lands: GPUs with processes that tests
 * add, change and remove between cycles; per-GPU failures on demand.
 */
final class ScriptedNvml implements Nvml {
    private record Proc(long pid, long usedMib, boolean client) {}

    private final Map<Integer, Long> totals = new TreeMap<>();
    private final Map<Integer, Map<Long, Proc>> procs = new TreeMap<>();
    private final Map<Integer, String> failures = new TreeMap<>();
    private final Map<Integer, String> clientListFailures = new TreeMap<>();
    int mpsClientReads;
    /** A non-client that NVML lists as a client from the second MPS-client read on (a client caught mid-start). */
    long lateClient;

    ScriptedNvml gpus(int count, long totalMib) {
        for (int i = 0; i < count; i++) { totals.put(i, totalMib); procs.put(i, new TreeMap<>()); }
        return this;
    }

    ScriptedNvml client(int gpu, long pid, long usedMib) { procs.get(gpu).put(pid, new Proc(pid, usedMib, true)); return this; }

    ScriptedNvml nonClient(int gpu, long pid, long usedMib) { procs.get(gpu).put(pid, new Proc(pid, usedMib, false)); return this; }

    ScriptedNvml gone(long pid) { procs.values().forEach(m -> m.remove(pid)); return this; }

    ScriptedNvml fail(int gpu, String why) { failures.put(gpu, why); return this; }

    ScriptedNvml failClientList(int gpu, String why) { clientListFailures.put(gpu, why); return this; }

    ScriptedNvml heal(int gpu) { failures.remove(gpu); clientListFailures.remove(gpu); return this; }

    @Override public String driverVersion() { return "580.159.04"; }

    @Override public int deviceCount() { return totals.size(); }

    @Override public DeviceInfo device(int index) {
        check(index, failures);
        long used = procs.get(index).values().stream().mapToLong(Proc::usedMib).sum();
        return new DeviceInfo(index, "GPU-" + index, "NVIDIA H200", index, "00000000:1" + index + ":00.0", totals.get(index), used);
    }

    @Override public List<GpuProcess> computeProcesses(int index) {
        check(index, failures);
        List<GpuProcess> out = new ArrayList<>();
        procs.get(index).values().forEach(p -> out.add(new GpuProcess(p.pid(), p.usedMib())));
        return out;
    }

    @Override public List<GpuProcess> mpsClients(int index) {
        mpsClientReads++;
        check(index, failures);
        check(index, clientListFailures);
        List<GpuProcess> out = new ArrayList<>();
        procs.get(index).values().stream().filter(p -> p.client() || (p.pid() == lateClient && mpsClientReads > 1))
                .forEach(p -> out.add(new GpuProcess(p.pid(), p.usedMib())));
        return out;
    }

    @Override public List<XidEvent> drainCriticalXids() { return List.of(); }

    @Override public void close() {}

    private static void check(int index, Map<Integer, String> f) {
        if (f.containsKey(index)) throw new NvmlException("nvmlDeviceGetComputeRunningProcesses", 15, f.get(index));
    }
}
