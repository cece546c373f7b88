package io.mpshare.nvml;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.util.ArrayList;
import java.util.List;
import java.util.logging.Logger;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * {@link Nvml} over {@code libnvidia-ml.so.1} through java.lang.foreign: the only class in mpshare
 * that touches native memory.
 *
 * <p>Implementation notes.
 * <ul>
 *   <li>Open with {@link #open()}: it loads the library, calls {@code nvmlInit_v2}, binds every
 *       function up front (a driver too old for a {@code _v3} call fails here, with its name), and
 *       caches the device handles (stable for the life of the NVML session). A machine without the
 *       library, without a loaded driver, or with no GPU gets one {@link NvmlException} saying so.</li>
 *   <li>Every call allocates its out-parameters in a confined arena of its own, so calls from
 *       several threads are safe (NVML itself is thread-safe). The Xid event set is guarded by this.</li>
 *   <li>Struct layouts, from nvml.h: {@code nvmlMemory_t} = 3 × u64 (total, free, used);
 *       {@code nvmlProcessInfo_t} (the {@code _v3} process calls) = pid u32, 4 bytes padding,
 *       usedGpuMemory u64, gpuInstanceId u32, computeInstanceId u32 = 24 bytes;
 *       {@code nvmlPciInfo_t} (v3) = busIdLegacy[16], 5 × u32, busId[32] = 68 bytes;
 *       {@code nvmlEventData_t} = device pointer, eventType u64, eventData u64 (the Xid), 2 × u32 = 32 bytes.</li>
 *   <li>Process lists: ask with count 0; on {@code NVML_ERROR_INSUFFICIENT_SIZE} NVML writes the
 *       count needed; allocate that plus slack (processes start between the two calls) and retry.</li>
 *   <li>{@code usedGpuMemory} is {@code NVML_VALUE_NOT_AVAILABLE} (all ones) when NVML cannot tell
 *       (e.g. no permission): reported as -1 MiB.</li>
 * </ul>
 */
public final class FfmNvml implements Nvml {
    public static final String LIBRARY = "libnvidia-ml.so.1";
    private static final Logger LOG = Logger.getLogger(FfmNvml.class.getName());

    static final int SUCCESS = 0, ERROR_NOT_SUPPORTED = 3, ERROR_INSUFFICIENT_SIZE = 7,
            ERROR_DRIVER_NOT_LOADED = 9, ERROR_TIMEOUT = 10;
    private static final long EVENT_XID_CRITICAL = 0x8L;
    private static final long VALUE_NOT_AVAILABLE = -1L;
    private static final int STRING_BUFFER = 96;

    private static final MemoryLayout PROCESS_INFO = MemoryLayout.structLayout(
            JAVA_INT.withName("pid"), MemoryLayout.paddingLayout(4), JAVA_LONG.withName("usedGpuMemory"),
            JAVA_INT.withName("gpuInstanceId"), JAVA_INT.withName("computeInstanceId"));
    private static final long PCI_INFO_SIZE = 68, PCI_BUS_ID_OFFSET = 36;
    private static final MemoryLayout EVENT_DATA = MemoryLayout.structLayout(
            ADDRESS.withName("device"), JAVA_LONG.withName("eventType"), JAVA_LONG.withName("eventData"),
            JAVA_INT.withName("gpuInstanceId"), JAVA_INT.withName("computeInstanceId"));

    private final Arena libraryArena;
    private final SymbolLookup lookup;
    private final MethodHandle errorString, shutdown, driverVersion, count, handleByIndex, uuid, name, index, minor,
            pciInfo, memoryInfo, computeProcs, mpsProcs, eventSetCreate, registerEvents, eventSetWait, eventSetFree;
    private final MemorySegment[] handles;
    private MemorySegment eventSet; // guarded by this; NULL once registration found nothing to watch
    private boolean closed; // guarded by this

    /** Opens {@value #LIBRARY}; fails with one clear message when there is no library, driver or GPU. */
    public static FfmNvml open() {
        return open(LIBRARY);
    }

    /** Opens the NVML library {@code library} (a name for the dynamic linker, or a path). */
    public static FfmNvml open(String library) {
        Arena arena = Arena.ofShared();
        SymbolLookup lookup;
        try {
            lookup = SymbolLookup.libraryLookup(library, arena);
        } catch (IllegalArgumentException e) {
            arena.close();
            throw new NvmlException("NVML is not available: " + library + " could not be loaded. This machine has no NVIDIA "
                    + "driver, or the driver's libraries are not mounted into this container (NVIDIA container toolkit, "
                    + "or a hostPath to the driver's lib folder). mpshare's node components need a GPU node.");
        }
        try {
            return new FfmNvml(arena, lookup);
        } catch (RuntimeException e) {
            arena.close();
            throw e;
        }
    }

    private FfmNvml(Arena arena, SymbolLookup lookup) {
        this.libraryArena = arena;
        this.lookup = lookup;
        errorString = bind("nvmlErrorString", FunctionDescriptor.of(ADDRESS, JAVA_INT));
        MethodHandle init = bind("nvmlInit_v2", FunctionDescriptor.of(JAVA_INT));
        shutdown = bind("nvmlShutdown", FunctionDescriptor.of(JAVA_INT));
        driverVersion = bind("nvmlSystemGetDriverVersion", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT));
        count = bind("nvmlDeviceGetCount_v2", FunctionDescriptor.of(JAVA_INT, ADDRESS));
        handleByIndex = bind("nvmlDeviceGetHandleByIndex_v2", FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS));
        uuid = bind("nvmlDeviceGetUUID", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_INT));
        name = bind("nvmlDeviceGetName", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_INT));
        index = bind("nvmlDeviceGetIndex", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));
        minor = bind("nvmlDeviceGetMinorNumber", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));
        pciInfo = bind("nvmlDeviceGetPciInfo_v3", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));
        memoryInfo = bind("nvmlDeviceGetMemoryInfo", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));
        FunctionDescriptor procs = FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS);
        computeProcs = bind("nvmlDeviceGetComputeRunningProcesses_v3", procs);
        mpsProcs = bind("nvmlDeviceGetMPSComputeRunningProcesses_v3", procs);
        eventSetCreate = bind("nvmlEventSetCreate", FunctionDescriptor.of(JAVA_INT, ADDRESS));
        registerEvents = bind("nvmlDeviceRegisterEvents", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, ADDRESS));
        eventSetWait = bind("nvmlEventSetWait_v2", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_INT));
        eventSetFree = bind("nvmlEventSetFree", FunctionDescriptor.of(JAVA_INT, ADDRESS));

        int rc = (int) invoke(init);
        if (rc == ERROR_DRIVER_NOT_LOADED) {
            throw new NvmlException("NVML is not available: the NVIDIA kernel driver is not loaded on this machine ("
                    + errorText(rc) + "). mpshare's node components need a GPU node.");
        }
        check("nvmlInit_v2", rc);
        int n = deviceCount();
        if (n == 0) {
            invoke(shutdown);
            throw new NvmlException("NVML found no GPU on this machine (driver " + driverVersion()
                    + "): nothing to share. Check that the GPUs are visible to this container.");
        }
        handles = new MemorySegment[n];
        try (Arena a = Arena.ofConfined()) {
            MemorySegment out = a.allocate(ADDRESS);
            for (int i = 0; i < n; i++) {
                check("nvmlDeviceGetHandleByIndex_v2(" + i + ")", (int) invoke(handleByIndex, i, out));
                handles[i] = out.get(ADDRESS, 0);
            }
        }
    }

    @Override public String driverVersion() {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment buf = a.allocate(STRING_BUFFER);
            check("nvmlSystemGetDriverVersion", (int) invoke(driverVersion, buf, STRING_BUFFER));
            return buf.getString(0);
        }
    }

    @Override public int deviceCount() {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment out = a.allocate(JAVA_INT);
            check("nvmlDeviceGetCount_v2", (int) invoke(count, out));
            return out.get(JAVA_INT, 0);
        }
    }

    @Override public DeviceInfo device(int i) {
        MemorySegment h = handle(i);
        try (Arena a = Arena.ofConfined()) {
            MemorySegment buf = a.allocate(STRING_BUFFER);
            check("nvmlDeviceGetUUID(" + i + ")", (int) invoke(uuid, h, buf, STRING_BUFFER));
            String u = buf.getString(0);
            check("nvmlDeviceGetName(" + i + ")", (int) invoke(name, h, buf, STRING_BUFFER));
            String n = buf.getString(0);
            MemorySegment out = a.allocate(JAVA_INT);
            check("nvmlDeviceGetIndex(" + i + ")", (int) invoke(index, h, out));
            int idx = out.get(JAVA_INT, 0);
            int rc = (int) invoke(minor, h, out);
            int m = rc == ERROR_NOT_SUPPORTED ? -1 : checked("nvmlDeviceGetMinorNumber(" + i + ")", rc, out.get(JAVA_INT, 0));
            MemorySegment pci = a.allocate(PCI_INFO_SIZE, 8);
            check("nvmlDeviceGetPciInfo_v3(" + i + ")", (int) invoke(pciInfo, h, pci));
            String busId = pci.getString(PCI_BUS_ID_OFFSET);
            MemorySegment mem = a.allocate(JAVA_LONG, 3);
            check("nvmlDeviceGetMemoryInfo(" + i + ")", (int) invoke(memoryInfo, h, mem));
            long total = mem.getAtIndex(JAVA_LONG, 0), used = mem.getAtIndex(JAVA_LONG, 2);
            return new DeviceInfo(idx, u, n, m, busId, total >> 20, ceilMib(used));
        }
    }

    @Override public List<GpuProcess> computeProcesses(int i) {
        return processes("nvmlDeviceGetComputeRunningProcesses_v3", computeProcs, i);
    }

    @Override public List<GpuProcess> mpsClients(int i) {
        return processes("nvmlDeviceGetMPSComputeRunningProcesses_v3", mpsProcs, i);
    }

    private List<GpuProcess> processes(String call, MethodHandle fn, int i) {
        MemorySegment h = handle(i);
        try (Arena a = Arena.ofConfined()) {
            MemorySegment countOut = a.allocate(JAVA_INT);
            countOut.set(JAVA_INT, 0, 0);
            int rc = (int) invoke(fn, h, countOut, MemorySegment.NULL);
            for (int attempt = 0; rc == ERROR_INSUFFICIENT_SIZE && attempt < 8; attempt++) {
                int capacity = countOut.get(JAVA_INT, 0) + 16;
                MemorySegment infos = a.allocate(PROCESS_INFO, capacity);
                countOut.set(JAVA_INT, 0, capacity);
                rc = (int) invoke(fn, h, countOut, infos);
                if (rc == SUCCESS) return readProcesses(infos, countOut.get(JAVA_INT, 0));
            }
            check(call + "(" + i + ")", rc);
            return List.of(); // SUCCESS with count 0: no process
        }
    }

    private static List<GpuProcess> readProcesses(MemorySegment infos, int n) {
        List<GpuProcess> out = new ArrayList<>(n);
        for (int k = 0; k < n; k++) {
            long base = k * PROCESS_INFO.byteSize();
            long pid = Integer.toUnsignedLong(infos.get(JAVA_INT, base));
            long used = infos.get(JAVA_LONG, base + 8);
            out.add(new GpuProcess(pid, used == VALUE_NOT_AVAILABLE ? -1 : ceilMib(used)));
        }
        return List.copyOf(out);
    }

    @Override public synchronized List<XidEvent> drainCriticalXids() {
        return drainXids().stream().filter(x -> Xids.isCritical(x.xid())).toList();
    }

    @Override public synchronized List<XidEvent> drainXids() {
        if (closed) throw new NvmlException("NVML is closed");
        if (eventSet == null) eventSet = registerXidEvents();
        if (eventSet.equals(MemorySegment.NULL)) return List.of();
        List<XidEvent> out = new ArrayList<>();
        try (Arena a = Arena.ofConfined()) {
            MemorySegment data = a.allocate(EVENT_DATA);
            for (int k = 0; k < 1024; k++) { // bounded: a storm of events must not pin this thread
                int rc = (int) invoke(eventSetWait, eventSet, data, 0);
                if (rc == ERROR_TIMEOUT) break;
                check("nvmlEventSetWait_v2", rc);
                long xid = data.get(JAVA_LONG, 16);
                int dev = indexOf(data.get(ADDRESS, 0));
                out.add(new XidEvent(dev, dev < 0 ? "" : device(dev).uuid(), xid));
            }
        }
        return List.copyOf(out);
    }

    private MemorySegment registerXidEvents() {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment out = a.allocate(ADDRESS);
            check("nvmlEventSetCreate", (int) invoke(eventSetCreate, out));
            MemorySegment set = out.get(ADDRESS, 0);
            int registered = 0;
            for (int i = 0; i < handles.length; i++) {
                int rc = (int) invoke(registerEvents, handles[i], EVENT_XID_CRITICAL, set);
                if (rc == ERROR_NOT_SUPPORTED) {
                    LOG.warning("GPU " + i + " does not report Xid events: its health is judged without them");
                    continue;
                }
                check("nvmlDeviceRegisterEvents(" + i + ")", rc);
                registered++;
            }
            if (registered == 0) {
                invoke(eventSetFree, set);
                return MemorySegment.NULL;
            }
            return set;
        }
    }

    @Override public synchronized void close() {
        if (closed) return;
        closed = true;
        if (eventSet != null && !eventSet.equals(MemorySegment.NULL)) invoke(eventSetFree, eventSet);
        int rc = (int) invoke(shutdown);
        libraryArena.close();
        if (rc != SUCCESS) LOG.warning("nvmlShutdown returned " + rc);
    }

    private MemorySegment handle(int i) {
        if (i < 0 || i >= handles.length) {
            throw new NvmlException("no GPU with index " + i + ": this machine has " + handles.length);
        }
        return handles[i];
    }

    private int indexOf(MemorySegment device) {
        for (int i = 0; i < handles.length; i++) if (handles[i].address() == device.address()) return i;
        return -1;
    }

    private static long ceilMib(long bytes) {
        return (bytes + (1 << 20) - 1) >> 20;
    }

    private MethodHandle bind(String symbol, FunctionDescriptor fd) {
        MemorySegment address = lookup.find(symbol).orElseThrow(() -> new NvmlException("the NVML library has no "
                + symbol + ": the NVIDIA driver is too old for mpshare (needs driver 510 or newer)"));
        return Linker.nativeLinker().downcallHandle(address, fd);
    }

    private void check(String call, int rc) {
        if (rc != SUCCESS) throw new NvmlException(call, rc, errorText(rc));
    }

    private int checked(String call, int rc, int value) {
        check(call, rc);
        return value;
    }

    private String errorText(int rc) {
        MemorySegment s = (MemorySegment) invoke(errorString, rc);
        return s.equals(MemorySegment.NULL) ? "unknown error" : s.reinterpret(Long.MAX_VALUE).getString(0);
    }

    private static Object invoke(MethodHandle h, Object... args) {
        try {
            return h.invokeWithArguments(args);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException("native call failed", t);
        }
    }

    static long processInfoSize() { return PROCESS_INFO.byteSize(); }

    static long eventDataSize() { return EVENT_DATA.byteSize(); }
}
