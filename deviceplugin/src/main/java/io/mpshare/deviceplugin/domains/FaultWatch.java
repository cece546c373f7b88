package io.mpshare.deviceplugin.domains;

import io.mpshare.core.isolation.FaultDomains.Kind;
import io.mpshare.core.isolation.FaultSuspects;
import io.mpshare.deviceplugin.domains.DomainPlan.Desired;
import io.mpshare.deviceplugin.domains.DomainPlan.Key;
import io.mpshare.deviceplugin.domains.DomainPlan.Member;
import io.mpshare.deviceplugin.domains.DomainReport.State;

import java.time.Instant;
import java.time.InstantSource;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.logging.Logger;

/**
 * What the domains' reports say happened: a domain's fault count that grew is a fault, a domain newly STALLED a stall.
 * Each is told once ({@link Notices}) with the pods the domain had then; a fault also feeds the {@link FaultSuspects}
 * whose verdict decides the domain of pods seen afterwards ({@link #suspect}).
 *
 * <p>The first report of a colour is a baseline: faults counted before this agent started were told by the run that
 * saw them. A domain first seen later (created by this run) with faults already counted is told.
 *
 * <p>Thread-safe: {@link #observe} runs on the controller's round, {@link #suspect} on the informer's thread.
 */
public final class FaultWatch {
    private static final Logger LOG = Logger.getLogger(FaultWatch.class.getName());

    /** Where a fault or stall is told: the pods' Events and the metrics. */
    public interface Notices {
        void fault(FaultNotice n);

        void stalled(StallNotice n);

        Notices NONE = new Notices() {
            @Override public void fault(FaultNotice n) {}

            @Override public void stalled(StallNotice n) {}
        };
    }

    /**
     * A domain faulted.
     *
     * @param domain   the domain as the bookings ask it, with its pods when the fault was seen; null when it had none
     * @param report   the supervisor's report that counted the fault ({@code lastFault}: when, which detector, the client
     *                 PIDs it killed)
     * @param suspects workloads of the domain that are suspects after this fault: their next pods get a domain of their own
     */
    public record FaultNotice(Key key, Desired domain, DomainReport report, List<String> suspects) {
        public FaultNotice { suspects = List.copyOf(suspects); }

        public List<Member> pods() { return domain == null ? List.of() : domain.pods(); }

        /** The supervisor's record of the fault, or null. */
        public DomainReport.Fault fault() { return report.lastFault(); }

        public Kind kind() { return domain != null ? domain.kind() : report.kind() != null ? report.kind() : Kind.TENANT; }
    }

    /** A domain's daemon stopped answering; {@code holders} hold connections to its {@code control} socket. */
    public record StallNotice(Key key, Desired domain, List<DomainReport.Holder> holders) {
        public StallNotice { holders = List.copyOf(holders); }

        public List<Member> pods() { return domain == null ? List.of() : domain.pods(); }
    }

    private final FaultSuspects suspects;
    private final InstantSource clock;
    private final Notices notices;
    private final Map<Key, Long> faultsSeen = new HashMap<>();
    private final Set<Key> stalled = new HashSet<>();
    private final Set<String> baselined = new HashSet<>();

    public FaultWatch(FaultSuspects suspects, InstantSource clock, Notices notices) {
        this.suspects = suspects;
        this.clock = clock;
        this.notices = notices;
    }

    /** Whether {@code workload} is a fault suspect now. */
    public synchronized boolean suspect(String workload) { return suspects.suspect(workload, clock.instant()); }

    /** The suspects now, each with until when. */
    public synchronized Map<String, Instant> suspects() { return suspects.suspects(clock.instant()); }

    /** A suspect published by an earlier run of the agent. */
    public synchronized void restore(String workload, Instant until) { suspects.restore(workload, until); }

    /** The domains {@code colour}'s supervisor reports now, against what the bookings ask ({@code plan}). */
    public synchronized void observe(String colour, Map<String, DomainReport> reports, Map<Key, Desired> plan) {
        boolean baseline = baselined.add(colour);
        for (DomainReport r : reports.values()) {
            Key k = new Key(colour, r.id());
            Long had = faultsSeen.put(k, r.faults());
            if (!baseline && r.faults() > (had == null ? 0 : had)) fault(k, r, plan.get(k));
            if (r.state() == State.STALLED) {
                if (stalled.add(k) && !baseline) stall(k, r, plan.get(k));
            } else if (stalled.remove(k)) {
                LOG.info("MPS domain " + k + " answers again (" + r.state() + ")");
            }
        }
        faultsSeen.keySet().removeIf(k -> k.colour().equals(colour) && !reports.containsKey(k.id()));
        stalled.removeIf(k -> k.colour().equals(colour) && !reports.containsKey(k.id()));
    }

    private void fault(Key k, DomainReport r, Desired d) {
        Instant at = r.lastFault() != null && r.lastFault().at() != null ? r.lastFault().at() : clock.instant();
        List<String> present = d == null ? List.of() : d.pods().stream().map(Member::workload).distinct().toList();
        List<String> named = suspects.fault(at, present);
        LOG.warning("MPS domain " + k + " faulted (fault " + r.faults() + (r.lastFault() == null ? "" : ", seen by " + r.lastFault().source()
                + ", clients killed " + r.lastFault().clients()) + "); pods " + (d == null ? "[]" : d.pods().stream().map(m -> m.pod().toString()).toList())
                + (named.isEmpty() ? "" : "; suspects " + named));
        notices.fault(new FaultNotice(k, d, r, named));
    }

    private void stall(Key k, DomainReport r, Desired d) {
        LOG.warning("MPS domain " + k + " stalled: its control socket is held by " + r.stalledBy());
        notices.stalled(new StallNotice(k, d, r.stalledBy()));
    }
}
