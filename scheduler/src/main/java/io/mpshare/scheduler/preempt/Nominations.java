package io.mpshare.scheduler.preempt;

import io.mpshare.core.ledger.RoomListener;
import io.mpshare.core.model.GpuDemand;
import io.mpshare.core.model.PodKey;
import io.mpshare.core.preempt.NominatedHold.Nominee;
import io.mpshare.kube.KubePod;
import io.mpshare.kube.PodEvents;
import io.mpshare.scheduler.cycle.Ask;
import io.mpshare.scheduler.cycle.AskReader;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalInt;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What preemption needs to know of the cluster's pods: every pod's priority (immutable once admitted) and the pods
 * nominated to a node that ask for shared GPUs, with the GPUs the preempt verb chose for them there.
 *
 * <p>Implementation notes.
 * <ul>
 * <li>A nomination starts when the preempt verb answers ({@link #nominated}): it names one node, so the node
 *     kube-scheduler then nominates is known before its victims are even deleted, and a pod that kube-scheduler
 *     retries on those deletions meets the hold whatever the order in which the two informers see the status patch
 *     and the deletions. Until the pod informer shows {@code status.nominatedNodeName}, such a nomination is
 *     provisional: it ends after {@code provisionalTtl} unless confirmed (kube-scheduler gave up between its call and
 *     the patch).</li>
 * <li>The pod informer's {@code status.nominatedNodeName} confirms, moves or (once confirmed) ends a nomination; a
 *     nomination also ends when the pod binds, finishes or is deleted. An event that shows no nomination before the
 *     pod informer ever showed one is an older version of the pod and ends nothing.</li>
 * <li>When a nomination ends or moves, the node it leaves is reported to the room listener: pods refused there for
 *     the held room may fit now.</li>
 * <li>All maps are concurrent; the informer's thread and the HTTP workers write, the workers read. A pod without
 *     {@code spec.priority} counts as 0, as in Kubernetes without a default PriorityClass.</li>
 * </ul>
 */
public final class Nominations implements PodEvents {
    /** A pod's UID and priority. */
    record Seen(String uid, int priority) {}

    /** Where a pod is nominated, whether the pod informer has shown it yet, and until when an unconfirmed one lasts. */
    private record Nomination(String node, boolean confirmed, Instant until) {}

    /** How long a nomination the preempt verb made waits for the pod informer to show it. */
    public static final Duration DEFAULT_PROVISIONAL_TTL = Duration.ofSeconds(15);

    private final AskReader asks;
    private final InstantSource clock;
    private final Duration provisionalTtl;
    private volatile RoomListener freed = RoomListener.NONE;
    private final Map<PodKey, Seen> seen = new ConcurrentHashMap<>();
    /** node → nominated pods there */
    private final Map<String, Map<PodKey, Nominee>> byNode = new ConcurrentHashMap<>();
    /** pod → (node → GPU indices the preempt verb chose there) */
    private final Map<PodKey, Map<String, List<Integer>>> decided = new ConcurrentHashMap<>();
    private final Map<PodKey, Nomination> nominatedTo = new ConcurrentHashMap<>();

    /** @param asks reads a nominee's demand as the verbs read its ask: with the serving domain of its namespace's kind */
    public Nominations(AskReader asks) {
        this(asks, InstantSource.system(), DEFAULT_PROVISIONAL_TTL);
    }

    public Nominations(AskReader asks, InstantSource clock, Duration provisionalTtl) {
        this.asks = Objects.requireNonNull(asks, "asks");
        this.clock = clock;
        this.provisionalTtl = provisionalTtl;
    }

    /** Tells {@code l} of each node a nomination leaves (its hold ends there). */
    public void onHoldEnded(RoomListener l) { freed = Objects.requireNonNull(l, "listener"); }

    @Override public void upserted(KubePod p) {
        PodKey key = p.key();
        int prio = p.priority();
        seen.put(key, new Seen(p.uid(), prio));
        boolean pending = p.nodeName() == null && !p.deleting() && !p.finished();
        if (!pending) {
            unNominate(key);
            decided.remove(key);
            return;
        }
        String node = p.nominatedNodeName();
        if (node == null) {
            Nomination n = nominatedTo.get(key);
            if (n != null && n.confirmed()) unNominate(key); // kube-scheduler cleared it
            return;
        }
        GpuDemand demand = demand(p);
        if (demand == null) { unNominate(key); return; }
        nominate(key, prio, demand, node, true);
    }

    @Override public void deleted(KubePod p) {
        PodKey key = p.key();
        seen.remove(key);
        decided.remove(key);
        unNominate(key);
    }

    /**
     * The preempt verb named {@code node} for {@code pod} (kube-scheduler nominates it there once it has deleted the
     * victims): its room is held from now on, on {@code gpus}, provisionally until the pod informer shows the nomination.
     */
    public void nominated(PodKey pod, int priority, GpuDemand demand, String node, List<Integer> gpus) {
        decided.put(pod, Map.of(node, List.copyOf(gpus)));
        Nomination had = nominatedTo.get(pod);
        if (had != null && had.confirmed() && had.node().equals(node)) {
            byNode.computeIfPresent(node, (k, m) -> { m.computeIfPresent(pod, (p, n) -> withGpus(n, node)); return m; });
            return;
        }
        nominate(pod, priority, demand, node, false);
    }

    private void nominate(PodKey key, int priority, GpuDemand demand, String node, boolean confirmed) {
        Nomination before = nominatedTo.put(key, new Nomination(node, confirmed, clock.instant().plus(provisionalTtl)));
        if (before != null && !before.node().equals(node)) removeFrom(before.node(), key);
        byNode.computeIfAbsent(node, k -> new ConcurrentHashMap<>()).put(key, withGpus(new Nominee(key, priority, demand, List.of()), node));
    }

    /** The pod's priority as the informer saw it, empty when the pod is not known. */
    public OptionalInt priority(PodKey pod) {
        Seen s = seen.get(pod);
        return s == null ? OptionalInt.empty() : OptionalInt.of(s.priority());
    }

    /** The priority of the pod with this UID, empty when not known or known under another UID. */
    public OptionalInt priority(PodKey pod, String uid) {
        Seen s = seen.get(pod);
        return s == null || (!uid.isEmpty() && !s.uid().isEmpty() && !s.uid().equals(uid)) ? OptionalInt.empty() : OptionalInt.of(s.priority());
    }

    /** True while some pod is nominated somewhere (the filter's fast check). */
    public boolean any() { return !nominatedTo.isEmpty(); }

    /** Nodes with a nominated pod now. */
    public Set<String> nodes() { return byNode.keySet(); }

    /** The pods nominated to {@code node} that {@code pod} (of {@code priority}) must leave room for: equal or higher priority, not itself. */
    public List<Nominee> heldAgainst(String node, PodKey pod, int priority) {
        Map<PodKey, Nominee> m = byNode.get(node);
        if (m == null) return List.of();
        List<Nominee> out = new ArrayList<>();
        Instant now = null;
        for (Nominee n : m.values()) {
            if (n.priority() < priority || n.pod().equals(pod)) continue;
            Nomination at = nominatedTo.get(n.pod());
            if (at != null && !at.confirmed()) {
                if (now == null) now = clock.instant();
                if (now.isAfter(at.until())) continue; // lapsed: expire() removes it
            }
            out.add(n);
        }
        return out;
    }

    /** Ends the provisional nominations that the pod informer never confirmed within their time; returns how many. */
    public int expire() {
        Instant now = clock.instant();
        int gone = 0;
        for (var e : nominatedTo.entrySet()) {
            Nomination n = e.getValue();
            if (n.confirmed() || !now.isAfter(n.until())) continue;
            if (nominatedTo.remove(e.getKey(), n)) {
                removeFrom(n.node(), e.getKey());
                gone++;
            }
        }
        return gone;
    }

    private Nominee withGpus(Nominee n, String node) {
        Map<String, List<Integer>> d = decided.get(n.pod());
        List<Integer> gpus = d == null ? null : d.get(node);
        return gpus == null ? n : new Nominee(n.pod(), n.priority(), n.demand(), gpus);
    }

    /** The pod's demand as filter and preempt read it (its fault domain included), or null: an unreadable request holds nothing. */
    private GpuDemand demand(KubePod p) {
        return asks.read(p.facts()) instanceof Ask.Gpu g ? g.demand() : null;
    }

    private void unNominate(PodKey key) {
        Nomination n = nominatedTo.remove(key);
        if (n != null) removeFrom(n.node(), key);
    }

    private void removeFrom(String node, PodKey key) {
        boolean[] removed = new boolean[1];
        byNode.computeIfPresent(node, (k, m) -> { removed[0] = m.remove(key) != null; return m.isEmpty() ? null : m; });
        if (removed[0]) freed.roomGrew(node);
    }
}
