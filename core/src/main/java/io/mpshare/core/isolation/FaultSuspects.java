package io.mpshare.core.isolation;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Collection;
import java.util.Deque;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * Who is suspected of faulting MPS servers, from the faults seen. Pure (the caller passes the time), not thread-safe.
 *
 * <p>Neither MPS log names the client that faulted, and the kernel's Xid line names a victim (FACTS.md): a single fault
 * says nothing about its culprit. A <b>workload</b> (a pod's controller, or the pod itself when it has none) present in
 * {@link Policy#faults} faults within {@link Policy#window} is named a suspect: every workload present in all of them
 * is, so a bystander beside the same culprit twice is named too, which costs it only a daemon of its own. A suspect's
 * pods placed afterwards get a {@code pod}-kind domain ({@link FaultDomains#choose}), until {@link Policy#hold} has
 * passed since the last fault it was present in.
 */
public final class FaultSuspects {
    /**
     * When a workload becomes a suspect and for how long.
     *
     * @param faults how many faults it must be present in (at least 2: one fault names no culprit)
     * @param window within how long
     * @param hold   how long it stays a suspect after the last fault it was present in
     */
    public record Policy(int faults, Duration window, Duration hold) {
        /**
         * Two faults within 10 minutes, held an hour: a Job's pod retried after a fault (back-off 10 s, 20 s, …, at most
         * 6 min) faults again inside the window; a bystander seldom shares a domain with the culprit twice by chance, and
         * an hour outlasts a retry loop while a reformed workload is back on shared domains the same day.
         */
        public static final Policy DEFAULT = new Policy(2, Duration.ofMinutes(10), Duration.ofHours(1));

        public Policy {
            if (faults < 2) throw new IllegalArgumentException("a suspect needs at least 2 faults (one fault names no culprit), got " + faults);
            Objects.requireNonNull(window, "window");
            Objects.requireNonNull(hold, "hold");
            if (window.isNegative() || window.isZero() || hold.isNegative())
                throw new IllegalArgumentException("suspect window must be > 0 and hold >= 0, got " + window + " and " + hold);
        }
    }

    private final Policy policy;
    private final Map<String, Deque<Instant>> seen = new HashMap<>();
    private final Map<String, Instant> until = new HashMap<>();

    public FaultSuspects(Policy policy) { this.policy = Objects.requireNonNull(policy, "policy"); }

    public Policy policy() { return policy; }

    /**
     * A fault at {@code at} in a domain where {@code present} workloads had pods; returns those that are suspects after
     * it (newly or again), in the order given.
     */
    public List<String> fault(Instant at, Collection<String> present) {
        var out = new LinkedHashSet<String>();
        for (String w : new LinkedHashSet<>(present)) {
            Deque<Instant> times = seen.computeIfAbsent(w, k -> new ArrayDeque<>());
            times.addLast(at);
            while (!times.isEmpty() && times.peekFirst().isBefore(at.minus(policy.window()))) times.removeFirst();
            if (times.size() >= policy.faults() || suspect(w, at)) {
                until.put(w, at.plus(policy.hold()));
                out.add(w);
            }
        }
        return List.copyOf(out);
    }

    /** Whether {@code workload} is a suspect at {@code now}. */
    public boolean suspect(String workload, Instant now) {
        Instant u = until.get(workload);
        return u != null && now.isBefore(u);
    }

    /** The suspects at {@code now} and until when each stays one, by name; forgets expired ones and old faults. */
    public Map<String, Instant> suspects(Instant now) {
        until.values().removeIf(u -> !now.isBefore(u));
        seen.values().forEach(d -> d.removeIf(t -> t.isBefore(now.minus(policy.window()))));
        seen.values().removeIf(Deque::isEmpty);
        return new TreeMap<>(until);
    }

    /** A suspect known from before (published by an earlier run of the agent), until {@code until}. */
    public void restore(String workload, Instant until) { this.until.merge(workload, until, (a, b) -> a.isAfter(b) ? a : b); }
}
