package io.mpshare.scheduler.preempt;

import io.mpshare.core.MemoryUnit;
import io.mpshare.core.model.DemandResolver;
import io.mpshare.core.model.GpuDemand;
import io.mpshare.core.model.PodKey;
import io.mpshare.core.preempt.NominatedHold.Nominee;
import io.mpshare.kube.KubePod;
import io.mpshare.kube.PodEvents;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What preemption needs to know of the cluster's pods, fed by the pod informer: every pod's priority
 * (immutable once admitted) and the pods nominated to a node ({@code status.nominatedNodeName}, not yet
 * bound) that ask for shared GPUs, with the GPUs the preempt verb chose for them there.
 *
 * <p>Implementation notes: all maps are concurrent; an informer thread writes, HTTP workers read. A pod
 * without {@code spec.priority} counts as 0, as in Kubernetes without a default PriorityClass. A pod is a
 * nominee while it is pending, not being deleted, and names a nominated node; it stops being one when it
 * binds, finishes, is deleted or the scheduler clears the nomination.
 */
public final class Nominations implements PodEvents {
    /** A pod's UID and priority. */
    record Seen(String uid, int priority) {}

    private final DemandResolver resolver;
    private final MemoryUnit unit;
    private final Map<PodKey, Seen> seen = new ConcurrentHashMap<>();
    /** node → nominated pods there */
    private final Map<String, Map<PodKey, Nominee>> byNode = new ConcurrentHashMap<>();
    /** pod → (node → GPU indices the preempt verb chose there) */
    private final Map<PodKey, Map<String, List<Integer>>> decided = new ConcurrentHashMap<>();
    private final Map<PodKey, String> nominatedTo = new ConcurrentHashMap<>();

    public Nominations(DemandResolver resolver, MemoryUnit unit) {
        this.resolver = resolver;
        this.unit = unit;
    }

    @Override public void upserted(KubePod p) {
        PodKey key = p.key();
        int prio = p.priority();
        seen.put(key, new Seen(p.uid(), prio));
        String node = p.nominatedNodeName();
        boolean nominee = node != null && p.nodeName() == null && !p.deleting() && !p.finished();
        GpuDemand demand = nominee ? demand(p) : null;
        if (demand == null) {
            unNominate(key);
            if (p.nodeName() != null || p.finished()) decided.remove(key);
            return;
        }
        String before = nominatedTo.put(key, node);
        if (before != null && !before.equals(node)) removeFrom(before, key);
        Nominee n = withGpus(new Nominee(key, prio, demand, List.of()), node);
        byNode.computeIfAbsent(node, k -> new ConcurrentHashMap<>()).put(key, n);
    }

    @Override public void deleted(KubePod p) {
        PodKey key = p.key();
        seen.remove(key);
        decided.remove(key);
        unNominate(key);
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
        for (Nominee n : m.values()) if (n.priority() >= priority && !n.pod().equals(pod)) out.add(n);
        return out;
    }

    /** Records the GPUs the preempt verb chose for {@code pod} on each candidate node (kube-scheduler picks one). */
    public void decided(PodKey pod, Map<String, List<Integer>> gpusByNode) {
        decided.put(pod, Map.copyOf(gpusByNode));
        String node = nominatedTo.get(pod);
        if (node != null) byNode.computeIfPresent(node, (k, m) -> { m.computeIfPresent(pod, (p, n) -> withGpus(n, node)); return m; });
    }

    private Nominee withGpus(Nominee n, String node) {
        Map<String, List<Integer>> d = decided.get(n.pod());
        List<Integer> gpus = d == null ? null : d.get(node);
        return gpus == null ? n : new Nominee(n.pod(), n.priority(), n.demand(), gpus);
    }

    private GpuDemand demand(KubePod p) {
        try {
            return switch (resolver.resolve(p.info(unit))) {
                case DemandResolver.Resolution.Resolved r -> r.demand();
                default -> null;
            };
        } catch (RuntimeException e) {
            return null; // an unreadable request holds nothing; its own filter says what is wrong
        }
    }

    private void unNominate(PodKey key) {
        String node = nominatedTo.remove(key);
        if (node != null) removeFrom(node, key);
    }

    private void removeFrom(String node, PodKey key) {
        byNode.computeIfPresent(node, (k, m) -> { m.remove(key); return m.isEmpty() ? null : m; });
    }
}
