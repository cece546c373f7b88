package io.mpshare.deviceplugin.domains;

import io.mpshare.core.isolation.FaultSuspects;
import io.mpshare.deviceplugin.cluster.KubeEvents;
import io.mpshare.deviceplugin.domains.DomainPlan.Desired;
import io.mpshare.deviceplugin.domains.DomainPlan.Member;

import java.time.InstantSource;
import java.util.List;
import java.util.stream.Collectors;

/**
 * A domain's fault or stall, told: a Warning Event on each pod the domain had ({@code MpsDomainFault},
 * {@code MpsDomainStalled}) naming the domain, what happened, the pods that shared it and the suspects named, and the
 * metrics ({@link DomainMetrics}).
 */
public final class DomainNotices implements FaultWatch.Notices {
    public static final String REASON_FAULT = "MpsDomainFault";
    public static final String REASON_STALLED = "MpsDomainStalled";
    /** At most this many pods are named in one Event (the message is cut at 1 KiB anyway). */
    static final int NAMED_PODS = 12;

    private final KubeEvents events;
    private final DomainMetrics metrics;
    private final FaultSuspects.Policy policy;
    private final InstantSource clock;

    public DomainNotices(KubeEvents events, DomainMetrics metrics, FaultSuspects.Policy policy, InstantSource clock) {
        this.events = events;
        this.metrics = metrics;
        this.policy = policy;
        this.clock = clock;
    }

    @Override public void fault(FaultWatch.FaultNotice n) {
        metrics.fault(n.kind(), n.pods());
        String message = faultMessage(n, policy);
        for (Member m : n.pods()) events.post(events.onPod(m.pod(), m.uid(), null, REASON_FAULT, true, message, clock.instant()));
    }

    @Override public void stalled(FaultWatch.StallNotice n) {
        if (n.domain() != null) metrics.stalled(n.domain().kind());
        String message = stallMessage(n);
        for (Member m : n.pods()) events.post(events.onPod(m.pod(), m.uid(), null, REASON_STALLED, true, message, clock.instant()));
    }

    /**
     * {@code GPU fault in MPS domain t-… (tenant team-a/1000, GPU 0) at …, seen by log: every client of its server was
     * ended (pids …) …; pods sharing the domain: …; suspect: …}.
     */
    static String faultMessage(FaultWatch.FaultNotice n, FaultSuspects.Policy policy) {
        var sb = new StringBuilder("GPU fault in MPS domain ").append(domain(n.key().id(), n.domain()));
        if (n.fault() != null) {
            if (n.fault().at() != null) sb.append(" at ").append(n.fault().at());
            if (n.fault().source() != null) sb.append(", seen by ").append(n.fault().source());
        }
        sb.append(": a client's fault ends every client of its MPS server, so its clients");
        if (n.fault() != null && !n.fault().clients().isEmpty()) sb.append(" (pids ").append(join(n.fault().clients())).append(')');
        sb.append(" were ended and the domain takes new clients once they have exited; other domains were not touched");
        sb.append("; pods sharing the domain: ").append(pods(n.pods()));
        if (n.suspects().isEmpty()) sb.append("; suspect: none named (MPS does not say which client faulted)");
        else sb.append("; suspect: ").append(String.join(", ", n.suspects())).append(" (present in ").append(policy.faults())
                .append(" faults within ").append(minutes(policy)).append(": its next pods get an MPS domain of their own)");
        return sb.toString();
    }

    /** {@code MPS domain t-… (…) stopped answering: its control socket is held by pid P (uid U, N connections); …}. */
    static String stallMessage(FaultWatch.StallNotice n) {
        String holders = n.holders().isEmpty() ? "a process that could not be named"
                : n.holders().stream().limit(4).map(h -> "pid " + h.pid() + " (uid " + h.uid() + ", " + h.connections() + " connections)")
                .collect(Collectors.joining(", "));
        return "MPS domain " + domain(n.key().id(), n.domain()) + " stopped answering: its control socket is held by " + holders
                + "; its daemon is not stopped (its clients keep running) and new pods of the domain are refused until it answers again"
                + "; pods sharing the domain: " + pods(n.pods());
    }

    private static String domain(String id, Desired d) {
        return d == null ? id : id + " (" + d.kind().label() + " " + d.who() + ", GPU " + d.gpu() + ")";
    }

    private static String pods(List<Member> pods) {
        if (pods.isEmpty()) return "none on this node";
        String named = pods.stream().limit(NAMED_PODS).map(m -> m.pod().toString()).collect(Collectors.joining(", "));
        return pods.size() > NAMED_PODS ? named + " and " + (pods.size() - NAMED_PODS) + " more" : named;
    }

    private static String join(List<Long> pids) {
        return pids.stream().limit(16).map(String::valueOf).collect(Collectors.joining(", ")) + (pids.size() > 16 ? ", …" : "");
    }

    private static String minutes(FaultSuspects.Policy p) {
        long m = p.window().toMinutes();
        return m > 0 && p.window().toSeconds() % 60 == 0 ? m + " min" : p.window().toSeconds() + " s";
    }
}
