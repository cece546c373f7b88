package io.mpshare.core.codec;

import io.mpshare.core.Names;

import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The per-pod GPU usage the node's policer publishes on the pod ({@code mpshare.io/usage}) and
 * {@code inspect} reads: allocated and used side by side, per GPU and per container.
 *
 * <p>Format (one line, readable in {@code kubectl describe}):
 * <pre>v1;at=2026-11-30T03:24:15Z;g=0:7680:6012:3,3:7680:100:1;c=main@0:5500:2,side@0:512:1,main@3:100:1</pre>
 * <ul>
 *   <li>{@code at}: when the policer took the sample (RFC 3339).</li>
 *   <li>{@code g}: one entry per GPU of the pod's allocation, {@code index:allocatedMiB:usedMiB:processes};
 *       allocated is what the ledger booked on that GPU ({@code charge} of {@code mpshare.io/allocation}:
 *       requests plus context reserves), used is NVML's per-process used memory summed over the pod's
 *       processes on that GPU (MPS clients and any rogue process alike).</li>
 *   <li>{@code c}: one entry per container and GPU where it has processes, {@code name@index:usedMiB:processes}.
 *       A container whose name could not be found is written {@code ?}.</li>
 * </ul>
 * Absent {@code c} means no container had a process on any GPU. Container names are DNS labels, so
 * they never contain the separators {@code ; , : @}.
 */
public final class UsageCodec {
    private UsageCodec() {}

    /** Name written for a process whose container could not be named. */
    public static final String UNKNOWN_CONTAINER = "?";

    /** A pod's usage at one sample. */
    public record PodUsage(Instant at, List<GpuUsage> gpus, List<ContainerUsage> containers) {
        public PodUsage {
            Objects.requireNonNull(at, "at");
            gpus = List.copyOf(gpus);
            containers = List.copyOf(containers);
        }

        /** Total used over all the pod's GPUs. */
        public long usedMib() { return gpus.stream().mapToLong(GpuUsage::usedMib).sum(); }

        /** Total allocated over all the pod's GPUs. */
        public long allocatedMib() { return gpus.stream().mapToLong(GpuUsage::allocatedMib).sum(); }
    }

    /** One GPU of a pod: booked vs used, and how many of the pod's processes hold memory there. */
    public record GpuUsage(int index, long allocatedMib, long usedMib, int processes) {
        public GpuUsage {
            if (index < 0) throw new IllegalArgumentException("GPU index must be >= 0, got " + index);
            if (allocatedMib < 0 || usedMib < 0 || processes < 0)
                throw new IllegalArgumentException("GPU " + index + ": usage figures must be >= 0");
        }
    }

    /** One container on one GPU. */
    public record ContainerUsage(String name, int gpu, long usedMib, int processes) {
        public ContainerUsage {
            Objects.requireNonNull(name, "name");
            if (name.isEmpty() || name.chars().anyMatch(ch -> ";,:@".indexOf(ch) >= 0))
                throw new IllegalArgumentException("container name '" + name + "' is empty or has a separator");
            if (gpu < 0 || usedMib < 0 || processes < 0)
                throw new IllegalArgumentException("container " + name + ": usage figures must be >= 0");
        }
    }

    public static String encode(PodUsage u) {
        StringBuilder sb = new StringBuilder("v1;at=").append(u.at()).append(";g=");
        boolean first = true;
        for (GpuUsage g : u.gpus()) {
            if (!first) sb.append(',');
            sb.append(g.index()).append(':').append(g.allocatedMib()).append(':').append(g.usedMib()).append(':').append(g.processes());
            first = false;
        }
        first = true;
        for (ContainerUsage c : u.containers()) {
            sb.append(first ? ";c=" : ",").append(c.name()).append('@').append(c.gpu())
              .append(':').append(c.usedMib()).append(':').append(c.processes());
            first = false;
        }
        return sb.toString();
    }

    /** Parses {@code mpshare.io/usage}; throws IllegalArgumentException naming the bad part. */
    public static PodUsage decode(String text) {
        if (text == null || text.isBlank()) throw new IllegalArgumentException(Names.ANN_USAGE + " is empty");
        String[] parts = text.trim().split(";");
        if (!"v1".equals(parts[0].trim()))
            throw new IllegalArgumentException(Names.ANN_USAGE + " has unknown version in '" + text + "'");
        Instant at = null;
        List<GpuUsage> gpus = new ArrayList<>();
        List<ContainerUsage> containers = new ArrayList<>();
        for (int i = 1; i < parts.length; i++) {
            String part = parts[i].trim();
            int eq = part.indexOf('=');
            if (eq < 0) throw new IllegalArgumentException(Names.ANN_USAGE + ": field '" + part + "' has no '='");
            String key = part.substring(0, eq), value = part.substring(eq + 1);
            try {
                switch (key) {
                    case "at" -> at = Instant.parse(value);
                    case "g" -> { for (String e : entries(value)) gpus.add(gpu(e)); }
                    case "c" -> { for (String e : entries(value)) containers.add(container(e)); }
                    default -> { /* unknown fields are skipped: newer writers may add some */ }
                }
            } catch (NumberFormatException | DateTimeParseException e) {
                throw new IllegalArgumentException(Names.ANN_USAGE + ": field '" + part + "' cannot be read: " + e.getMessage());
            }
        }
        if (at == null) throw new IllegalArgumentException(Names.ANN_USAGE + ": field 'at' is missing in '" + text + "'");
        return new PodUsage(at, gpus, containers);
    }

    private static List<String> entries(String v) {
        return v.isBlank() ? List.of() : List.of(v.split(","));
    }

    private static GpuUsage gpu(String e) {
        String[] p = e.trim().split(":");
        if (p.length != 4) throw new IllegalArgumentException(Names.ANN_USAGE + ": GPU entry '" + e + "' is not index:allocated:used:processes");
        return new GpuUsage(Integer.parseInt(p[0]), Long.parseLong(p[1]), Long.parseLong(p[2]), Integer.parseInt(p[3]));
    }

    private static ContainerUsage container(String e) {
        String t = e.trim();
        int at = t.lastIndexOf('@');
        String[] p = at < 0 ? new String[0] : t.substring(at + 1).split(":");
        if (at <= 0 || p.length != 3)
            throw new IllegalArgumentException(Names.ANN_USAGE + ": container entry '" + e + "' is not name@gpu:used:processes");
        return new ContainerUsage(t.substring(0, at), Integer.parseInt(p[0]), Long.parseLong(p[1]), Integer.parseInt(p[2]));
    }
}
