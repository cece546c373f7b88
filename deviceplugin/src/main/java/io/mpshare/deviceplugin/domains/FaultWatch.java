package io.mpshare.deviceplugin.domains;

import io.mpshare.core.isolation.FaultDomains.Kind;
import io.mpshare.core.isolation.FaultSuspects;
import io.mpshare.deviceplugin.domains.DomainPlan.Desired;
import io.mpshare.deviceplugin.domains.DomainPlan.Key;
import io.mpshare.deviceplugin.domains.DomainPlan.Member;
import io.mpshare.deviceplugin.domains.DomainReport.State;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import java.util.logging.Logger;

/**
 * What the domains' reports say happened: a domain's fault count that grew is a fault, a domain newly STALLED a stall.
 * Each is told once ({@link Notices}) with the pods the domain had then; a fault also feeds the {@link FaultSuspects}
 * whose verdict decides the domain of pods seen afterwards ({@link #suspect}).
 *
 * <p>The pods told of a fault are the domain's pods when the fault is seen and those that left it since the fault
 * happened ({@link #LEFT_KEPT} at most): MPS kills a faulting domain's clients, so kubelet may mark their pods Failed,
 * and their bookings go, before the round that reads the fault count.
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
     * @param left     pods that left the domain since the fault happened (their clients killed by it, their pods failed)
     */
    public record FaultNotice(Key key, Desired domain, DomainReport report, List<String> suspects, List<Member> left) {
        public FaultNotice {
            suspects = List.copyOf(suspects);
            left = List.copyOf(left);
        }

        /** Every pod the fault touched: the domain's pods when it was seen, then those that left it since it happened. */
        public List<Member> pods() {
            if (left.isEmpty()) return domain == null ? List.of() : domain.pods();
            List<Member> all = new ArrayList<>(domain == null ? List.of() : domain.pods());
            all.addAll(left);
            return List.copyOf(all);
        }

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
    /** How long a pod that left a domain is remembered for a fault found after it left. */
    static final Duration LEFT_KEPT = Duration.ofMinutes(2);
    private record Left(Member member, Instant at) {}
    /** Each domain's pods at the last round, and the pods seen leaving it within {@link #LEFT_KEPT}. */
    private final Map<Key, List<Member>> members = new HashMap<>();
    private final Map<Key, List<Left>> left = new HashMap<>();

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
        noteLeavers(colour, plan);
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

    /** Records the pods that left {@code colour}'s domains since the last round; forgets those that left long ago. */
    private void noteLeavers(String colour, Map<Key, Desired> plan) {
        Instant now = clock.instant();
        Set<Key> keys = new HashSet<>(plan.keySet());
        keys.addAll(members.keySet());
        for (Key k : keys) {
            if (!k.colour().equals(colour)) continue;
            Desired d = plan.get(k);
            List<Member> still = d == null ? List.of() : d.pods();
            List<Member> before = members.getOrDefault(k, List.of());
            for (Member m : before)
                if (!still.contains(m)) left.computeIfAbsent(k, x -> new ArrayList<>()).add(new Left(m, now));
            if (still.isEmpty()) members.remove(k); else members.put(k, still);
        }
        Instant oldest = now.minus(LEFT_KEPT);
        left.values().forEach(l -> l.removeIf(x -> x.at().isBefore(oldest)));
        left.values().removeIf(List::isEmpty);
    }

    private void fault(Key k, DomainReport r, Desired d) {
        Instant at = r.lastFault() != null && r.lastFault().at() != null ? r.lastFault().at() : clock.instant();
        List<Member> gone = new ArrayList<>(); // seen gone at or after the fault: the round that saw it came after it
        for (Left x : left.getOrDefault(k, List.of()))
            if (!x.at().isBefore(at) && (d == null || !d.pods().contains(x.member())) && !gone.contains(x.member())) gone.add(x.member());
        List<String> present = Stream.concat(d == null ? Stream.<Member>empty() : d.pods().stream(), gone.stream())
                .map(Member::workload).distinct().toList();
        List<String> named = suspects.fault(at, present);
        var notice = new FaultNotice(k, d, r, named, gone);
        LOG.warning("MPS domain " + k + " faulted (fault " + r.faults() + (r.lastFault() == null ? "" : ", seen by " + r.lastFault().source()
                + ", clients killed " + r.lastFault().clients()) + "); pods " + notice.pods().stream().map(m -> m.pod().toString()).toList()
                + (named.isEmpty() ? "" : "; suspects " + named));
        notices.fault(notice);
    }

    private void stall(Key k, DomainReport r, Desired d) {
        LOG.warning("MPS domain " + k + " stalled: its control socket is held by " + r.stalledBy());
        notices.stalled(new StallNotice(k, d, r.stalledBy()));
    }
}
