package io.mpshare.scheduler.policy;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.mpshare.core.Names;
import io.mpshare.core.ledger.Allocation;
import io.mpshare.core.ledger.NodeState;
import io.mpshare.core.model.GpuDemand;
import io.mpshare.core.model.PodKey;
import io.mpshare.core.policy.Evaluation;
import io.mpshare.core.policy.FragmentationPolicy;
import io.mpshare.core.policy.PlacementPolicy;
import io.mpshare.kube.HostAsk;
import io.mpshare.kube.KubePod;
import io.mpshare.kube.PodEvents;

import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

/**
 * Free host CPU and memory per node, as kube-scheduler counts them: {@code status.allocatable} minus the
 * {@link HostAsk effective requests} of the pods bound there and not finished, kept from the node and pod
 * informers one event at a time (no scan per request).
 *
 * <p>Implementation notes.
 * <ul>
 * <li>Pods the extender has booked in the ledger but the informer does not yet show bound there (a pipelining
 *     hold, a bind in flight, a Binding not yet echoed) count too: for each booking in the node's ledger
 *     snapshot whose pod is not counted as bound on that node, the pod's own request (known from the pod
 *     informer, which sees pending pods; 0 if not seen yet). So two pods scored back to back see each other's
 *     CPU. The sum is cached per node against the snapshot and the room it was computed from (both immutable,
 *     compared by identity), so a decision reads one cached record per node unless the node changed.</li>
 * <li>A node without {@code status.allocatable} cpu (memory) has unknown CPU (memory):
 *     {@link FragmentationPolicy#CPU_UNKNOWN}, never short.</li>
 * <li>Concurrency: writers (informer events) take this object's monitor and replace a node's {@code Room}
 *     (an immutable record, copy on write); readers take no lock.</li>
 * </ul>
 */
public final class HostRoom {
    private static final long UNKNOWN = FragmentationPolicy.CPU_UNKNOWN;

    /** One node: allocatable (UNKNOWN where not published) and the pods counted as bound there with their asks. */
    private record Room(long cpuAlloc, long memAlloc, long cpuUsed, long memUsed, Map<PodKey, HostAsk> bound) {
        static final Room EMPTY = new Room(UNKNOWN, UNKNOWN, 0, 0, Map.of());

        Room withAlloc(long cpu, long mem) { return new Room(cpu, mem, cpuUsed, memUsed, bound); }

        Room with(PodKey pod, HostAsk ask) {
            Map<PodKey, HostAsk> b = new HashMap<>(bound);
            HostAsk old = b.put(pod, ask);
            long c = cpuUsed + ask.cpuMilli() - (old == null ? 0 : old.cpuMilli()), m = memUsed + ask.memoryMib() - (old == null ? 0 : old.memoryMib());
            return new Room(cpuAlloc, memAlloc, c, m, Map.copyOf(b));
        }

        Room without(PodKey pod) {
            HostAsk old = bound.get(pod);
            if (old == null) return this;
            Map<PodKey, HostAsk> b = new HashMap<>(bound);
            b.remove(pod);
            return new Room(cpuAlloc, memAlloc, cpuUsed - old.cpuMilli(), memUsed - old.memoryMib(), Map.copyOf(b));
        }
    }

    /** The asks of a snapshot's bookings not counted in {@code room}, for that snapshot and room. */
    private record Extra(NodeState state, Room room, long cpu, long mem) {}

    private static final class Entry {
        volatile Room room = Room.EMPTY;
        volatile Extra extra;
    }

    /** A pod the informer showed: its UID, request and node (null while pending). */
    private record Seen(String uid, HostAsk ask, String node) {}

    private final ConcurrentHashMap<String, Entry> nodes = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<PodKey, Seen> pods = new ConcurrentHashMap<>();
    private volatile Consumer<String> changed;

    /**
     * Tells {@code l} the name of every node whose host room changed, after the change (one listener, replacing the
     * last). The extender touches the node in the ledger's index with it, so a score remembered against the node's
     * version ({@link PlacementPolicy#scoreKey}) is not given after its room moved.
     */
    public void onChange(Consumer<String> l) { changed = Objects.requireNonNull(l, "listener"); }

    /** Whether every change is told to a listener ({@link #onChange}). */
    public boolean told() { return changed != null; }

    private void set(Entry e, String node, Room r) {
        if (e.room == r) return;
        e.room = r;
        Consumer<String> l = changed;
        if (l != null) l.accept(node);
    }

    /** The node informer's events (labelled nodes: their allocatable CPU and memory). */
    public ResourceEventHandler<Node> nodeEvents() {
        return new ResourceEventHandler<>() {
            @Override public void onAdd(Node n) { applyNode(n); }
            @Override public void onUpdate(Node old, Node n) { applyNode(n); }
            @Override public void onDelete(Node n, boolean unknown) { removeNode(n.getMetadata().getName()); }
        };
    }

    /** The pod informer's events (every pod: pending ones for their asks, bound ones for their nodes). */
    public PodEvents podEvents() {
        return new PodEvents() {
            @Override public void upserted(KubePod p) { applyPod(p); }
            @Override public void deleted(KubePod p) { forgetPod(p); }
        };
    }

    public synchronized void applyNode(Node n) {
        var alloc = n.getStatus() == null ? null : n.getStatus().getAllocatable();
        boolean hasCpu = alloc != null && alloc.get(Names.RESOURCE_CPU) != null, hasMem = alloc != null && alloc.get(Names.RESOURCE_MEMORY) != null;
        long cpu = hasCpu ? HostAsk.amount(alloc, Names.RESOURCE_CPU, true, false) : UNKNOWN;
        long mem = hasMem ? HostAsk.amount(alloc, Names.RESOURCE_MEMORY, false, false) : UNKNOWN;
        String node = n.getMetadata().getName();
        Entry e = entry(node);
        set(e, node, e.room.withAlloc(cpu, mem));
    }

    public synchronized void removeNode(String node) {
        Entry e = nodes.get(node);
        if (e != null) set(e, node, e.room.withAlloc(UNKNOWN, UNKNOWN));
    }

    public synchronized void applyPod(KubePod p) {
        PodKey key = p.key();
        if (p.finished()) { forget(key); return; }
        Seen now = new Seen(p.uid(), p.hostAsk(), p.nodeName());
        Seen before = pods.put(key, now);
        if (now.equals(before)) return; // a status update: nothing of ours changed
        if (before != null && before.node() != null && !before.node().equals(now.node())) unbind(key, before.node());
        if (now.node() != null) {
            Entry e = entry(now.node());
            set(e, now.node(), e.room.with(key, now.ask()));
        }
    }

    public synchronized void forgetPod(KubePod p) {
        PodKey key = p.key();
        Seen s = pods.get(key);
        String uid = p.uid();
        if (s != null && !uid.isEmpty() && !s.uid().isEmpty() && !uid.equals(s.uid())) return; // an older pod of that name
        forget(key);
    }

    private void forget(PodKey key) {
        Seen before = pods.remove(key);
        if (before != null && before.node() != null) unbind(key, before.node());
    }

    private void unbind(PodKey key, String node) {
        Entry e = nodes.get(node);
        if (e != null) set(e, node, e.room.without(key));
    }

    private Entry entry(String node) { return nodes.computeIfAbsent(node, k -> new Entry()); }

    /** Whether the pod informer shows this pod bound to a node. */
    public boolean bound(PodKey pod) {
        Seen s = pods.get(pod);
        return s != null && s.node() != null;
    }

    /** Whether the pod informer has shown this pod (and it is not deleted or finished). */
    public boolean known(PodKey pod) { return pods.containsKey(pod); }

    /** The pod's own request as the pod informer last showed it; {@link HostAsk#NONE} when not seen. */
    public HostAsk ask(PodKey pod) {
        Seen s = pods.get(pod);
        return s == null ? HostAsk.NONE : s.ask();
    }

    /** The node's free CPU (thousandths) before {@code self}, or {@link FragmentationPolicy#CPU_UNKNOWN}. */
    public long cpuLeft(NodeState s, PodKey self) { return left(s, self, true); }

    /** The node's free memory (MiB) before {@code self}, or {@link FragmentationPolicy#CPU_UNKNOWN}. */
    public long memoryLeft(NodeState s, PodKey self) { return left(s, self, false); }

    /** A policy's answer for a node given its free CPU and memory and the pod's own request, as {@link FragmentationPolicy} takes them. */
    @FunctionalInterface
    public interface Evaluator {
        Evaluation evaluate(NodeState s, GpuDemand d, long cpuLeft, long podCpu, long memLeft, long podMem);
    }

    /**
     * {@code policy}'s evaluation of {@code d} for the pod {@code self} (asking {@code ask}) on {@code s}, with the
     * node's free CPU and memory: what prioritize scores and bind books with.
     */
    public Evaluation evaluate(Evaluator policy, NodeState s, GpuDemand d, PodKey self, HostAsk ask) {
        Entry e = nodes.get(s.name());
        if (e == null) return policy.evaluate(s, d, UNKNOWN, ask.cpuMilli(), UNKNOWN, ask.memoryMib());
        Room r = e.room;
        if (r.cpuAlloc() == UNKNOWN && r.memAlloc() == UNKNOWN) return policy.evaluate(s, d, UNKNOWN, ask.cpuMilli(), UNKNOWN, ask.memoryMib());
        Extra x = extra(e, r, s);
        return policy.evaluate(s, d, left(r, x, s, self, true), ask.cpuMilli(), left(r, x, s, self, false), ask.memoryMib());
    }

    private long left(NodeState s, PodKey self, boolean cpu) {
        Entry e = nodes.get(s.name());
        if (e == null) return UNKNOWN;
        Room r = e.room;
        return left(r, extra(e, r, s), s, self, cpu);
    }

    private long left(Room r, Extra x, NodeState s, PodKey self, boolean cpu) {
        long alloc = cpu ? r.cpuAlloc() : r.memAlloc();
        if (alloc == UNKNOWN) return UNKNOWN;
        long left = alloc - (cpu ? r.cpuUsed() + x.cpu() : r.memUsed() + x.mem());
        if (self == null) return left;
        HostAsk mine = r.bound().get(self); // the pod's own request never counts against it
        if (mine == null && s.pods().containsKey(self)) mine = ask(self);
        return mine == null ? left : left + (cpu ? mine.cpuMilli() : mine.memoryMib());
    }

    private Extra extra(Entry e, Room r, NodeState s) {
        Extra x = e.extra;
        if (x != null && x.state() == s && x.room() == r) return x;
        long cpu = 0, mem = 0;
        for (Allocation a : s.pods().values()) {
            if (r.bound().containsKey(a.pod())) continue;
            HostAsk ask = ask(a.pod());
            cpu += ask.cpuMilli();
            mem += ask.memoryMib();
        }
        x = new Extra(s, r, cpu, mem);
        e.extra = x;
        return x;
    }
}
