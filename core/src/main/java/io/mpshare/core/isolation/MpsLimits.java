package io.mpshare.core.isolation;

import io.mpshare.core.MemoryUnit;
import io.mpshare.core.Names;
import io.mpshare.core.ledger.Allocation;
import io.mpshare.core.model.ContainerShare;
import io.mpshare.core.model.GpuDemand;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.function.IntFunction;

/**
 * The MPS limits a booking turns into (docs/architecture.md, "isolation layers"): pure, no I/O.
 *
 * <pre>client cap on a GPU   = the client's share there + the context reserve           (layer 1, CUDA_MPS_PINNED_DEVICE_MEM_LIMIT)
 * server ceiling          = roundUpToWholeGib(largest client cap it serves), 1 GiB when it serves none    (layer 2)</pre>
 *
 * <p>Every GPU-asking container is one MPS client: its cap on each GPU is what it may hold there, its CUDA context
 * included (FACTS.md: the context counts against the cap). A client can only lower its own cap through its env; the
 * server's ceiling is the hard bound, so it is never below a cap it serves (rounded <b>up</b>: the daemon keeps
 * pinned-memory limits in whole GiB, {@code 2560M} reads back as {@code 2G}, so rounded down it would cut a booked
 * client below its cap), and a client that raises its env cap gets at most the largest cap on its server. A server
 * with nothing booked gets 1 GiB, the smallest the daemon holds (a CUDA context alone takes about half): a process
 * that escapes booking gets almost nothing.
 *
 * <p><b>Servers.</b> {@link #ceilings} and {@link #threadPercentages} take the server as a key. The device plugin keys
 * them by fault domain ({@link FaultDomains}: a set of pods sharing one daemon on a GPU), so each domain's daemon gets
 * the ceiling and share of its own pods only; {@link #ceilingPerGpu} is the rule for a daemon that serves every GPU
 * (the colour's node daemon, and host mode).
 */
public final class MpsLimits {
    private MpsLimits() {}

    public static final long GIB_MIB = 1024;
    /** The smallest ceiling the daemon can hold, and the one a server gets with nothing booked: 1 GiB. */
    public static final long SMALLEST_CEILING_MIB = GIB_MIB;

    /** One client's cap on the server {@code server}, in MiB. */
    public record Cap<S>(S server, long mib) {
        public Cap {
            Objects.requireNonNull(server, "server");
            if (mib < 0) throw new IllegalArgumentException("a cap must be >= 0 MiB, got " + mib);
        }
    }

    // ---- layer 1: the client --------------------------------------------------------------------------------------

    /** A client's cap on one GPU: its share there plus the context reserve. */
    public static long clientCapMib(long shareMib, long reserveMib) {
        if (shareMib < 0 || reserveMib < 0) throw new IllegalArgumentException("share and reserve must be >= 0 MiB, got " + shareMib + " and " + reserveMib);
        return Math.addExact(shareMib, reserveMib);
    }

    /**
     * A client's cap on each GPU it sees, in ordinal order, from the devices kubelet handed it on each ({@code units}):
     * so a container never gets more than kubelet counted for it.
     */
    public static List<Long> clientCapsMib(List<Long> unitsPerGpu, MemoryUnit unit, long reserveMib) {
        var out = new ArrayList<Long>(unitsPerGpu.size());
        for (long units : unitsPerGpu) out.add(clientCapMib(unit.toMib(units), reserveMib));
        return List.copyOf(out);
    }

    /** The largest cap among a booking's clients, the same on each of its GPUs; the charge when it names no container. */
    public static long largestClientCapMib(GpuDemand d) {
        if (d.containers().isEmpty()) return d.chargeMib();
        long cap = 0;
        for (ContainerShare c : d.containers()) cap = Math.max(cap, clientCapMib(c.memMibPerGpu(), d.reserveMib()));
        return cap;
    }

    /** {@code CUDA_MPS_PINNED_DEVICE_MEM_LIMIT}'s value: {@code 0=7680M,1=7680M}, one entry per visible ordinal. */
    public static String pinnedLimit(List<Long> capsMib) {
        var sb = new StringBuilder();
        for (int ordinal = 0; ordinal < capsMib.size(); ordinal++) {
            if (ordinal > 0) sb.append(',');
            sb.append(ordinal).append('=').append(capsMib.get(ordinal)).append('M');
        }
        return sb.toString();
    }

    /**
     * The env that puts a client under its limits: {@code NVIDIA_VISIBLE_DEVICES} (UUIDs, so ordinals inside follow
     * {@code gpuUuids}' order), {@code CUDA_MPS_PIPE_DIRECTORY}, {@code CUDA_MPS_PINNED_DEVICE_MEM_LIMIT} (one cap per
     * ordinal) and, when a core share was asked, {@code CUDA_MPS_ACTIVE_THREAD_PERCENTAGE}. Insertion-ordered.
     */
    public static Map<String, String> clientEnv(List<String> gpuUuids, List<Long> capsMib, int corePercent, String pipeDir) {
        if (gpuUuids.isEmpty() || gpuUuids.size() != capsMib.size())
            throw new IllegalArgumentException(gpuUuids.size() + " GPU(s) for " + capsMib.size() + " cap(s): one cap per visible GPU");
        if (corePercent < 0 || corePercent > 100) throw new IllegalArgumentException("core share must be 0-100, got " + corePercent);
        var env = new LinkedHashMap<String, String>();
        env.put(Names.ENV_VISIBLE_DEVICES, String.join(",", gpuUuids));
        env.put(Names.ENV_MPS_PIPE, Objects.requireNonNull(pipeDir, "pipeDir"));
        env.put(Names.ENV_MPS_MEM_LIMIT, pinnedLimit(capsMib));
        if (corePercent > 0) env.put(Names.ENV_MPS_THREADS, Integer.toString(corePercent));
        return env;
    }

    // ---- layer 2: the server --------------------------------------------------------------------------------------

    /** A server's ceiling for the largest cap it serves: rounded up to whole GiB, at least {@link #SMALLEST_CEILING_MIB}. */
    public static long ceilingMib(long largestCapMib) {
        if (largestCapMib < 0) throw new IllegalArgumentException("a limit must be >= 0 MiB, got " + largestCapMib);
        return Math.max(SMALLEST_CEILING_MIB, Math.ceilDiv(largestCapMib, GIB_MIB) * GIB_MIB);
    }

    /** Whether the daemon can hold {@code mib} as it is (a positive whole number of GiB). */
    public static boolean wholeGib(long mib) { return mib > 0 && mib % GIB_MIB == 0; }

    /**
     * The ceiling of each of {@code servers}: {@link #ceilingMib} of the largest cap keyed to it, so a server nothing
     * is booked on gets the 1 GiB floor. Caps keyed to a server not listed are left out. Ordered as {@code servers}.
     */
    public static <S> Map<S, Long> ceilings(Collection<Cap<S>> caps, Collection<S> servers) {
        Map<S, Long> largest = new HashMap<>();
        for (Cap<S> c : caps) largest.merge(c.server(), c.mib(), Math::max);
        Map<S, Long> out = new LinkedHashMap<>();
        for (S s : servers) out.put(s, ceilingMib(largest.getOrDefault(s, 0L)));
        return out;
    }

    /** A booking's clients as caps, one per GPU it is booked on: the largest client cap there, on {@code serverOf(gpu)}. */
    public static <S> List<Cap<S>> caps(Allocation a, IntFunction<S> serverOf) {
        long cap = largestClientCapMib(a.demand());
        var out = new ArrayList<Cap<S>>(a.gpuIndices().size());
        for (int g : a.gpuIndices()) out.add(new Cap<>(serverOf.apply(g), cap));
        return out;
    }

    // ---- layer 2: the server's compute share --------------------------------------------------------------------

    /** The active-thread percentage a server gets when a client it serves asked no core share, or when it serves none. */
    public static final int WHOLE_GPU_PERCENT = 100;

    /** One client's core share on the server {@code server}, in percent of the GPU's SMs; 0: it asked none. */
    public record Share<S>(S server, int percent) {
        public Share {
            Objects.requireNonNull(server, "server");
            if (percent < 0 || percent > 100) throw new IllegalArgumentException("a core share must be 0-100, got " + percent);
        }
    }

    /**
     * A booking's compute share, the same on each of its GPUs: the largest core share among its containers, or 0 when
     * one of them asked none (that client may use every SM, so the booking restricts nothing).
     */
    public static int largestClientSharePercent(GpuDemand d) {
        if (d.containers().isEmpty()) return d.chargeCore();
        int share = 0;
        for (ContainerShare c : d.containers()) {
            if (c.corePerGpu() == 0) return 0;
            share = Math.max(share, c.corePerGpu());
        }
        return share;
    }

    /** A booking's clients as shares, one per GPU it is booked on, on {@code serverOf(gpu)}. */
    public static <S> List<Share<S>> shares(Allocation a, IntFunction<S> serverOf) {
        int share = largestClientSharePercent(a.demand());
        var out = new ArrayList<Share<S>>(a.gpuIndices().size());
        for (int g : a.gpuIndices()) out.add(new Share<>(serverOf.apply(g), share));
        return out;
    }

    /**
     * The active-thread percentage of each of {@code servers} ({@code set_active_thread_percentage}, a ceiling the
     * client's env cannot pass, FACTS.md): the largest share keyed to it, or {@link #WHOLE_GPU_PERCENT} when any client
     * keyed to it asked none or none is. As with memory, a client gets at most the largest share booked on its server:
     * a server shared by pods of different shares holds each only to the largest. Ordered as {@code servers}.
     */
    public static <S> Map<S, Integer> threadPercentages(Collection<Share<S>> shares, Collection<S> servers) {
        Map<S, Integer> largest = new HashMap<>();
        for (Share<S> s : shares)
            largest.merge(s.server(), s.percent() == 0 ? WHOLE_GPU_PERCENT : s.percent(), Math::max);
        Map<S, Integer> out = new LinkedHashMap<>();
        for (S s : servers) out.put(s, largest.getOrDefault(s, WHOLE_GPU_PERCENT));
        return out;
    }

    /** {@link #ceilings} with one server per GPU (one daemon serves every pod of the node): GPU index → ceiling. */
    public static Map<Integer, Long> ceilingPerGpu(Collection<Allocation> booked, Collection<Integer> gpus) {
        var caps = new ArrayList<Cap<Integer>>();
        for (Allocation a : booked) caps.addAll(caps(a, g -> g));
        return new TreeMap<>(ceilings(caps, gpus));
    }
}
