package io.mpshare.core.codec;

import io.mpshare.core.MemoryUnit;
import io.mpshare.core.Names;
import io.mpshare.core.ledger.Allocation;
import io.mpshare.core.ledger.Phase;
import io.mpshare.core.model.ContainerShare;
import io.mpshare.core.model.GpuDemand;
import io.mpshare.core.model.NodeInventory;
import io.mpshare.core.model.PodInfo;
import io.mpshare.core.model.PodPeak;
import io.mpshare.core.model.Gpu;

import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Writes an {@link Allocation} into pod annotations and reads it back, so that every component can
 * rebuild the ledger from the API server alone.
 *
 * <p>Format of {@code mpshare.io/allocation} (one line, readable in {@code kubectl describe}):
 * <pre>v1;node=n1;gpus=0,3;uuids=GPU-a,GPU-b;reserve=512;charge=7680/30;c=main:7168:30,side:512:0;i=setup:1024:0,proxy:1024:0;s=proxy</pre>
 * {@code c=} lists app containers and {@code i=} init containers (in spec order) as name:MiB-per-GPU:core-per-GPU;
 * {@code s=} names the init containers that are native sidecars ({@code restartPolicy: Always}), which run beside
 * the app containers ({@link PodPeak});
 * {@code charge=} is MiB/core booked on each GPU. Alongside it: {@code mpshare.io/assume-time} (RFC 3339)
 * and {@code mpshare.io/assigned} (true/false). For gpushare tools the ACK v1 keys are written too.
 *
 * <p>Pods placed by ACK gpushare carry only {@code ALIYUN_COM_GPU_MEM_IDX} and {@code ALIYUN_COM_GPU_MEM_POD}
 * (GiB); {@link #decode} accounts them as one allocation with no context reserve.
 */
public final class AllocationCodec {
    private AllocationCodec() {}

    public static Map<String, String> encode(Allocation a, MemoryUnit unit) {
        var m = new LinkedHashMap<String, String>();
        GpuDemand d = a.demand();
        StringBuilder sb = new StringBuilder("v1;node=").append(a.node())
                .append(";gpus=").append(join(a.gpuIndices()))
                .append(";uuids=").append(String.join(",", a.gpuUuids()))
                .append(";reserve=").append(d.reserveMib())
                .append(";charge=").append(d.chargeMib()).append('/').append(d.chargeCore());
        appendContainers(sb, ";c=", d.containers(), false);
        appendContainers(sb, ";i=", d.containers(), true);
        appendSidecars(sb, d.containers());
        m.put(Names.ANN_ALLOCATION, sb.toString());
        m.put(Names.ANN_ASSUME_TIME, a.assumedAt().toString());
        m.put(Names.ANN_ASSIGNED, Boolean.toString(a.phase() == Phase.ASSIGNED));
        m.put(Names.ACK_GPU_MEM_IDX, join(a.gpuIndices()));
        m.put(Names.ACK_GPU_MEM_POD, Long.toString(unit.fromMib(d.requestedMib())));
        m.put(Names.ACK_GPU_MEM_ASSIGNED, Boolean.toString(a.phase() == Phase.ASSIGNED));
        m.put(Names.ACK_GPU_MEM_ASSUME_TIME, Long.toString(a.assumedAt().getEpochSecond() * 1_000_000_000L + a.assumedAt().getNano()));
        return m;
    }

    private static void appendContainers(StringBuilder sb, String key, List<ContainerShare> cs, boolean init) {
        boolean first = true;
        for (ContainerShare c : cs) {
            if (c.init() != init) continue;
            sb.append(first ? key : ",").append(c.name()).append(':').append(c.memMibPerGpu()).append(':').append(c.corePerGpu());
            first = false;
        }
    }

    /** {@code ;s=a,b}: the names of the {@code i=} entries that are native sidecars (readers that do not know it ignore it). */
    private static void appendSidecars(StringBuilder sb, List<ContainerShare> cs) {
        boolean first = true;
        for (ContainerShare c : cs) {
            if (!c.sidecar()) continue;
            sb.append(first ? ";s=" : ",").append(c.name());
            first = false;
        }
    }

    private static String join(List<Integer> xs) {
        StringBuilder sb = new StringBuilder();
        for (int x : xs) { if (!sb.isEmpty()) sb.append(','); sb.append(x); }
        return sb.toString();
    }

    /** Result of {@link #decode}: no allocation annotated, a decoded allocation, or a malformed annotation with the reason. */
    public sealed interface Decoded {
        record None() implements Decoded {}
        record Found(Allocation allocation) implements Decoded {}
        record Malformed(String reason) implements Decoded {}
    }

    /**
     * Reads a pod's allocation from its annotations: ours first, then ACK v1.
     *
     * @param node      the pod's {@code spec.nodeName}, or null when not bound yet
     * @param inventory the node's GPUs, to find UUIDs of ACK-placed pods (may be null)
     * @param bound     whether the pod is bound (decides BOUND vs ASSUMED when not assigned)
     */
    public static Decoded decode(PodInfo pod, Map<String, String> ann, String node, NodeInventory inventory, boolean bound, MemoryUnit unit) {
        String ours = ann.get(Names.ANN_ALLOCATION);
        if (ours != null) return decodeOurs(pod, ann, ours, node, bound);
        String idx = ann.get(Names.ACK_GPU_MEM_IDX);
        if (idx != null && node != null) return decodeAck(pod, ann, idx, node, inventory, unit);
        return new Decoded.None();
    }

    private static Decoded decodeOurs(PodInfo pod, Map<String, String> ann, String text, String boundNode, boolean bound) {
        try {
            Map<String, String> f = fields(text);
            if (!"v1".equals(f.get("_version"))) return new Decoded.Malformed(Names.ANN_ALLOCATION + " has unknown version in '" + text + "'");
            String node = require(f, "node");
            if (boundNode != null && !boundNode.equals(node))
                return new Decoded.Malformed(Names.ANN_ALLOCATION + " names node " + node + " but the pod is bound to " + boundNode);
            List<Integer> gpus = new ArrayList<>();
            for (String g : require(f, "gpus").split(",")) {
                int i = Integer.parseInt(g.trim());
                if (i < 0) throw new IllegalArgumentException("GPU index " + i + " is negative");
                gpus.add(i);
            }
            List<String> uuids = List.of(require(f, "uuids").split(","));
            long reserve = Long.parseLong(require(f, "reserve"));
            String[] charge = require(f, "charge").split("/");
            List<ContainerShare> cs = new ArrayList<>();
            List<String> sidecars = f.get("s") == null || f.get("s").isEmpty() ? List.of() : List.of(f.get("s").split(","));
            for (String key : new String[]{"c", "i"}) {
                String v = f.get(key);
                if (v == null || v.isEmpty()) continue;
                for (String part : v.split(",")) {
                    String[] p = part.split(":");
                    if (p.length != 3) throw new IllegalArgumentException("container entry '" + part + "' is not name:MiB:core");
                    boolean init = key.equals("i");
                    cs.add(new ContainerShare(p[0], init, Long.parseLong(p[1]), Integer.parseInt(p[2]), init && sidecars.contains(p[0])));
                }
            }
            var demand = new GpuDemand(gpus.size(), Long.parseLong(charge[0]), Integer.parseInt(charge[1]), reserve,
                    Math.multiplyExact(PodPeak.mib(cs, 0), gpus.size()), cs, pod.runAsUser());
            Instant at = parseTime(ann.get(Names.ANN_ASSUME_TIME));
            Phase phase = "true".equals(ann.get(Names.ANN_ASSIGNED)) ? Phase.ASSIGNED : bound ? Phase.BOUND : Phase.ASSUMED;
            return new Decoded.Found(new Allocation(pod.key(), pod.uid(), node, gpus, uuids, demand, at, phase));
        } catch (RuntimeException e) {
            return new Decoded.Malformed(Names.ANN_ALLOCATION + " of pod " + pod.key() + " cannot be read (" + e.getMessage() + "): '" + text + "'");
        }
    }

    private static Decoded decodeAck(PodInfo pod, Map<String, String> ann, String idxText, String node, NodeInventory inv, MemoryUnit unit) {
        try {
            List<Integer> gpus = new ArrayList<>();
            List<String> uuids = new ArrayList<>();
            for (String g : idxText.split(",")) {
                int i = Integer.parseInt(g.trim());
                if (i < 0) return new Decoded.Malformed(Names.ACK_GPU_MEM_IDX + " of pod " + pod.key() + " is " + idxText
                        + ": a GPU index must be >= 0");
                gpus.add(i);
                Gpu gpu = inv == null ? null : inv.gpu(i);
                uuids.add(gpu == null ? "unknown-gpu-" + i : gpu.uuid());
            }
            String podMem = ann.get(Names.ACK_GPU_MEM_POD);
            long mib;
            if (podMem != null) mib = unit.toMib(Long.parseLong(podMem.trim()));
            else {
                mib = 0;
                for (var c : pod.containers()) if (!c.init()) mib += c.memMib();
            }
            if (mib <= 0) return new Decoded.Malformed("ACK annotations of pod " + pod.key() + " give no GPU memory");
            long per = mib / gpus.size();
            var demand = new GpuDemand(gpus.size(), per, 0, 0, mib,
                    List.of(new ContainerShare("gpushare", false, per, 0)), pod.runAsUser());
            String t = ann.get(Names.ACK_GPU_MEM_ASSUME_TIME);
            Instant at = t == null ? Instant.EPOCH : Instant.ofEpochSecond(0, Long.parseLong(t.trim()));
            Phase phase = "true".equals(ann.get(Names.ACK_GPU_MEM_ASSIGNED)) ? Phase.ASSIGNED : Phase.BOUND;
            return new Decoded.Found(new Allocation(pod.key(), pod.uid(), node, gpus, uuids, demand, at, phase));
        } catch (RuntimeException e) {
            return new Decoded.Malformed("ACK annotations of pod " + pod.key() + " cannot be read: " + e.getMessage());
        }
    }

    private static Map<String, String> fields(String text) {
        var m = new LinkedHashMap<String, String>();
        String[] parts = text.split(";");
        m.put("_version", parts[0].trim());
        for (int i = 1; i < parts.length; i++) {
            int eq = parts[i].indexOf('=');
            if (eq < 0) throw new IllegalArgumentException("field '" + parts[i] + "' has no '='");
            m.put(parts[i].substring(0, eq).trim(), parts[i].substring(eq + 1).trim());
        }
        return m;
    }

    private static String require(Map<String, String> f, String key) {
        String v = f.get(key);
        if (v == null || v.isEmpty()) throw new IllegalArgumentException("field '" + key + "' is missing");
        return v;
    }

    private static Instant parseTime(String s) {
        if (s == null) return Instant.EPOCH;
        try { return Instant.parse(s.trim()); }
        catch (DateTimeParseException e) { throw new IllegalArgumentException("assume time '" + s + "' is not RFC 3339"); }
    }

    /** Convenience for adapters: the allocation if present and well formed. */
    public static Optional<Allocation> found(Decoded d) {
        return d instanceof Decoded.Found f ? Optional.of(f.allocation()) : Optional.empty();
    }
}
