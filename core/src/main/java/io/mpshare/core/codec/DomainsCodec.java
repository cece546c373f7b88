package io.mpshare.core.codec;

import io.mpshare.core.isolation.FaultDomains;

import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * A node's MPS fault domains as the device plugin publishes them on its Node ({@code mpshare.io/domains}) and
 * {@code mpshare inspect} reads them: per GPU each domain with pods there, its state and faults, and the workloads the
 * node holds as fault suspects.
 *
 * <p>Format (one line):
 * <pre>v1;at=2026-12-01T10:00:00Z;d=0|t-3f2a9c0d1e7b|tenant|SERVING|2|1|2026-12-01T09:58:03Z|team-a/1000,0|node|node|SERVING|1|0|-|gpu-a;s=team-a/Job/train|2026-12-01T10:58:03Z</pre>
 * <ul>
 *   <li>{@code d}: {@code gpuIndex|id|kind|state|pods|faults|lastFault|who}: the domain's id, its kind's label, the
 *       supervisor's state of its daemon ({@code SERVING}, {@code FAULTED}, …; {@code UNKNOWN} when the supervisor has
 *       not reported it), how many pods of this node it serves on that GPU, its faults so far, the last one's time
 *       ({@code -}: none), and whose it is (the tenant key {@code namespace/uid}, {@code namespace/pod}, or the node);</li>
 *   <li>{@code s}: {@code workload|until}: a suspect ({@code namespace/Kind/name} of its controller, or
 *       {@code namespace/Pod/name}) and until when its pods get domains of their own.</li>
 * </ul>
 * Names are Kubernetes names, which never contain {@code ; , |}.
 */
public final class DomainsCodec {
    private DomainsCodec() {}

    private static final String SEPARATORS = ";,|";

    /** What a node publishes. */
    public record NodeDomains(Instant at, List<Domain> domains, List<Suspect> suspects) {
        public NodeDomains {
            Objects.requireNonNull(at, "at");
            domains = List.copyOf(domains);
            suspects = List.copyOf(suspects);
        }

        /** The domains on GPU {@code index}. */
        public List<Domain> onGpu(int index) { return domains.stream().filter(d -> d.gpu() == index).toList(); }
    }

    /** One domain on one GPU. */
    public record Domain(int gpu, String id, FaultDomains.Kind kind, String state, int pods, long faults, Instant lastFault, String who) {
        public Domain {
            if (gpu < 0) throw new IllegalArgumentException("GPU index must be >= 0, got " + gpu);
            clean(id, "domain id");
            Objects.requireNonNull(kind, "kind");
            clean(state, "state");
            clean(who, "who");
            if (pods < 0 || faults < 0) throw new IllegalArgumentException("domain " + id + ": pods and faults must be >= 0");
        }
    }

    /** A workload held as a fault suspect until {@code until}. */
    public record Suspect(String workload, Instant until) {
        public Suspect {
            clean(workload, "workload");
            Objects.requireNonNull(until, "until");
        }
    }

    private static void clean(String s, String what) {
        Objects.requireNonNull(s, what);
        if (s.isEmpty() || s.chars().anyMatch(ch -> SEPARATORS.indexOf(ch) >= 0))
            throw new IllegalArgumentException(what + " '" + s + "' is empty or has one of " + SEPARATORS);
    }

    public static String encode(NodeDomains n) {
        var sb = new StringBuilder("v1;at=").append(n.at());
        String sep = ";d=";
        for (Domain d : n.domains()) {
            sb.append(sep).append(d.gpu()).append('|').append(d.id()).append('|').append(d.kind().label()).append('|').append(d.state())
                    .append('|').append(d.pods()).append('|').append(d.faults()).append('|').append(d.lastFault() == null ? "-" : d.lastFault())
                    .append('|').append(d.who());
            sep = ",";
        }
        sep = ";s=";
        for (Suspect s : n.suspects()) {
            sb.append(sep).append(s.workload()).append('|').append(s.until());
            sep = ",";
        }
        return sb.toString();
    }

    /** Reads {@link #encode}'s text; a one-line {@link IllegalArgumentException} naming what is wrong otherwise. */
    public static NodeDomains decode(String text) {
        if (text == null || !text.startsWith("v1;")) throw new IllegalArgumentException("not a v1 domains annotation: " + text);
        Instant at = null;
        var domains = new ArrayList<Domain>();
        var suspects = new ArrayList<Suspect>();
        for (String part : text.substring(3).split(";")) {
            if (part.startsWith("at=")) at = instant(part.substring(3));
            else if (part.startsWith("d=")) for (String e : part.substring(2).split(",")) domains.add(domain(e));
            else if (part.startsWith("s=")) for (String e : part.substring(2).split(",")) suspects.add(suspect(e));
            else if (!part.isEmpty()) throw new IllegalArgumentException("unknown part '" + part + "' in domains annotation");
        }
        if (at == null) throw new IllegalArgumentException("domains annotation without at=: " + text);
        return new NodeDomains(at, domains, suspects);
    }

    private static Domain domain(String e) {
        String[] f = e.split("\\|", -1);
        if (f.length != 8) throw new IllegalArgumentException("domain entry '" + e + "' must have 8 fields gpu|id|kind|state|pods|faults|lastFault|who");
        try {
            FaultDomains.Kind kind = FaultDomains.Kind.parseOrThrow(f[2], "domain kind");
            return new Domain(Integer.parseInt(f[0]), f[1], kind, f[3], Integer.parseInt(f[4]), Long.parseLong(f[5]),
                    f[6].equals("-") ? null : instant(f[6]), f[7]);
        } catch (NumberFormatException x) {
            throw new IllegalArgumentException("domain entry '" + e + "' has a number that is not one: " + x.getMessage());
        }
    }

    private static Suspect suspect(String e) {
        String[] f = e.split("\\|", -1);
        if (f.length != 2) throw new IllegalArgumentException("suspect entry '" + e + "' must be workload|until");
        return new Suspect(f[0], instant(f[1]));
    }

    private static Instant instant(String s) {
        try {
            return Instant.parse(s);
        } catch (DateTimeParseException x) {
            throw new IllegalArgumentException("'" + s + "' is not an RFC 3339 time");
        }
    }
}
