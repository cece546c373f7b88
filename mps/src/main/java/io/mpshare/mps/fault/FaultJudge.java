package io.mpshare.mps.fault;

import io.mpshare.mps.fault.FaultSignal.Strength;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;

/**
 * Which domain faulted, from the detectors' signals. Pure and single-threaded (the supervisor's thread).
 * <ul>
 *   <li>a {@link Strength#FAULT} for a domain: that domain;</li>
 *   <li>a hint in a domain's log and an Xid on that domain's GPU within {@code corroboration} of each other: that domain
 *       (the kernel says a client on the GPU faulted, the domain's own log says it was one of its);</li>
 *   <li>an Xid alone: nobody. It names a GPU, and the PID the kernel logs with it is a victim (the server's first client),
 *       not the culprit; a GPU holds several domains, and a process outside every domain can raise one too. Acting on it
 *       would let one tenant's fault end another tenant's clients.</li>
 * </ul>
 * Every finding carries the signals seen for that domain or its GPU in the last {@code recall} (each source's first),
 * so the status shows which detector was first.
 */
public final class FaultJudge {
    private final Duration corroboration;
    private final Duration recall;
    private final Deque<FaultSignal> recent = new ArrayDeque<>();

    public FaultJudge(Duration corroboration, Duration recall) {
        this.corroboration = corroboration;
        this.recall = recall;
    }

    /** A domain that faulted, the source it was decided on, and the signals that bear on it, earliest first. */
    public record Finding(String domain, String source, List<FaultSignal> signals) {
        public Finding { signals = List.copyOf(signals); }
    }

    /**
     * Takes one signal and returns the domains it shows faulted.
     *
     * @param gpuOfDomain every domain's GPU UUID
     */
    public List<Finding> take(FaultSignal s, Map<String, String> gpuOfDomain) {
        Instant now = s.at();
        while (!recent.isEmpty() && recent.peekFirst().at().isBefore(now.minus(recall))) recent.removeFirst();
        recent.addLast(s);
        List<Finding> out = new ArrayList<>();
        if (s.domain() != null) {
            String gpu = gpuOfDomain.get(s.domain());
            if (s.strength() == Strength.FAULT) {
                out.add(new Finding(s.domain(), s.source(), bearing(s.domain(), gpu)));
            } else if (gpu != null && seen(null, gpu, now)) {
                out.add(new Finding(s.domain(), s.source() + "+" + FaultSignal.XID, bearing(s.domain(), gpu)));
            }
        } else if (s.gpu() != null) {
            gpuOfDomain.forEach((domain, gpu) -> {
                if (gpu.equals(s.gpu()) && seen(domain, null, now))
                    out.add(new Finding(domain, FaultSignal.XID + "+" + FaultSignal.LOG, bearing(domain, gpu)));
            });
        }
        return out;
    }

    /** A hint for this domain (or GPU) within the corroboration window of {@code now}. */
    private boolean seen(String domain, String gpu, Instant now) {
        for (FaultSignal r : recent) {
            if (Duration.between(r.at(), now).abs().compareTo(corroboration) > 0) continue;
            if (domain != null && domain.equals(r.domain())) return true;
            if (gpu != null && gpu.equals(r.gpu())) return true;
        }
        return false;
    }

    /** Each source's first signal for the domain or its GPU, earliest first. */
    private List<FaultSignal> bearing(String domain, String gpu) {
        List<FaultSignal> out = new ArrayList<>();
        for (FaultSignal r : recent) {
            boolean mine = domain.equals(r.domain()) || (gpu != null && gpu.equals(r.gpu()));
            if (mine && out.stream().noneMatch(o -> o.source().equals(r.source()))) out.add(r);
        }
        return out;
    }
}
