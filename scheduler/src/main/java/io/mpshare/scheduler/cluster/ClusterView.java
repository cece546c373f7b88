package io.mpshare.scheduler.cluster;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.mpshare.core.MemoryUnit;
import io.mpshare.core.Names;
import io.mpshare.core.codec.InventoryCodec;
import io.mpshare.core.ledger.Allocation;
import io.mpshare.core.ledger.Ledger;
import io.mpshare.core.ledger.NodeState;
import io.mpshare.core.model.Gpu;
import io.mpshare.core.model.DemandResolver;
import io.mpshare.core.model.GpuDemand;
import io.mpshare.core.model.NodeInventory;
import io.mpshare.core.model.PodKey;
import io.mpshare.kube.KubePod;
import io.mpshare.kube.PodEvents;
import io.mpshare.kube.PodInformer;
import io.mpshare.kube.node.BookingCheck;
import io.mpshare.kube.node.Distrust;
import io.mpshare.kube.node.NodePod;
import io.mpshare.scheduler.cycle.AskReader;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiConsumer;
import java.util.function.Predicate;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Keeps the {@link Ledger} in step with the cluster through two fabric8 informers.
 *
 * <p>Implementation notes.
 * <ul>
 * <li>Nodes: only those labelled {@code ack.node.gpu.schedule=mps}. Each node's GPUs come from the
 *     inventory its device plugin publishes in {@code mpshare.io/gpus} ({@link InventoryCodec}), one entry
 *     per GPU with its own size, so mixed GPUs are exact. A labelled node with no (or an unreadable)
 *     inventory is kept with no GPUs, so filter says why it cannot take a pod.</li>
 * <li>Pods: a tenant can write its own pod's annotations, so an allocation annotation (ours or ACK v1) is booked only
 *     for a pod of an accepted scheduler profile, bound to the node the annotation names, whose own resources ask
 *     {@code gpu-mem} (ACK gpushare's annotations: of any profile, its scheduler placed them); the demand is derived from those resources and must agree with the annotation, only the GPU set
 *     and phase are read from it (the device plugin's checks, {@link BookingCheck}); a charge above a GPU's size is
 *     refused. A pending pod's annotation books nothing: the extender's own annotations reach a pod only inside its
 *     Binding. A booking is restored unless the ledger already holds the same placement in the same or a later phase
 *     (the Binding echoes back as the pod bound with its annotations). Deleted or finished pods are released at
 *     once, but only if the booking belongs to the same pod UID.</li>
 * <li>Readiness: {@link #start} waits until both informers have listed, then replays both stores through
 *     the same handlers (idempotent), so the ledger is rebuilt before {@link #ready()} turns true.</li>
 * <li>Expiry: every {@code period}, ASSUMED bookings older than the ledger's TTL are released when their
 *     pod is gone, finished, has another UID, is bound to another node, or is still pending (the bind that booked it
 *     is long over; whatever the pod's annotations say).</li>
 * </ul>
 */
public final class ClusterView implements AutoCloseable {
    private static final Logger LOG = Logger.getLogger(ClusterView.class.getName());
    private final KubernetesClient client;
    private final Ledger ledger;
    private final MemoryUnit unit;
    private final ScheduledExecutorService scheduler;
    private final Duration period;
    private final AtomicLong malformed = new AtomicLong();
    private final AtomicLong distrusted = new AtomicLong();
    private SharedIndexInformer<Node> nodes;
    private PodInformer pods;
    private ScheduledFuture<?> expiry;
    private volatile boolean ready;
    /** Further pod handlers (preemption's {@code Nominations}), registered on the pod informer at {@link #start}. */
    private final List<PodEvents> podHandlers = new CopyOnWriteArrayList<>();
    /** Further node handlers (the default policy's host room), registered on the node informer at {@link #start}. */
    private final List<ResourceEventHandler<Node>> nodeHandlers = new CopyOnWriteArrayList<>();

    private final BiConsumer<PodKey, GpuDemand> seen;
    /** Whether a pod is of a scheduler profile this extender places: only those are booked from their annotations. */
    private final Predicate<KubePod> ours;
    /** Gives a restored booking the serving domain its pod's namespace asks, as the bind that booked it did. */
    private final AskReader asks;

    /**
     * {@link #ClusterView(KubernetesClient, Ledger, MemoryUnit, ScheduledExecutorService, Duration, BiConsumer, Predicate, AskReader)}
     * for pods of any profile, every one served by the node daemon ({@link AskReader#NODE_EVERYWHERE}).
     */
    public ClusterView(KubernetesClient client, Ledger ledger, MemoryUnit unit, ScheduledExecutorService scheduler, Duration period,
                       BiConsumer<PodKey, GpuDemand> seen) {
        this(client, ledger, unit, scheduler, period, seen, p -> true, new AskReader(unit, new DemandResolver(0, unit)));
    }

    /**
     * @param client    where the informers read (null for callers that {@link #offer} nodes and pods themselves)
     * @param scheduler runs the expiry of stale assumptions every {@code period}
     * @param seen      told of every pod seen with a GPU booking and its demand (the default policy learns its task
     *                  mix from it; {@code (pod, demand) -> {}} for none)
     * @param ours      whether a pod is of a scheduler profile this extender places (its bind's check)
     * @param asks      the extender's reader of asks: a restored booking is given the serving domain
     *                  ({@link AskReader#domain}) that filter, prioritize and bind gave the pod
     */
    public ClusterView(KubernetesClient client, Ledger ledger, MemoryUnit unit, ScheduledExecutorService scheduler, Duration period,
                       BiConsumer<PodKey, GpuDemand> seen, Predicate<KubePod> ours, AskReader asks) {
        this.seen = Objects.requireNonNull(seen, "seen");
        this.ours = Objects.requireNonNull(ours, "ours");
        this.asks = Objects.requireNonNull(asks, "asks");
        this.client = client;
        this.ledger = ledger;
        this.unit = unit;
        this.scheduler = scheduler;
        this.period = period;
    }

    /** Starts both informers, waits for their first list (at most {@code timeout}), rebuilds the ledger. */
    public void start(Duration timeout) throws TimeoutException, InterruptedException {
        nodes = client.nodes().withLabel(Names.NODE_LABEL_SCHEDULE, Names.NODE_LABEL_SCHEDULE_MPS).runnableInformer(0);
        nodes.addEventHandler(new ResourceEventHandler<>() {
            @Override public void onAdd(Node n) { applyNode(n); }
            @Override public void onUpdate(Node old, Node n) { applyNode(n); }
            @Override public void onDelete(Node n, boolean unknown) { removeNode(n); }
        });
        pods = new PodInformer(client);
        pods.add(new PodEvents() {
            @Override public void upserted(KubePod p) { applyPod(p); }
            @Override public void deleted(KubePod p) { forgetPod(p); }
        });
        for (PodEvents h : podHandlers) pods.add(h);
        for (ResourceEventHandler<Node> h : nodeHandlers) nodes.addEventHandler(h);
        long deadline = System.nanoTime() + timeout.toNanos();
        var n = nodes.start().toCompletableFuture();
        var p = pods.start();
        try {
            n.get(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            p.get(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
        } catch (ExecutionException e) {
            throw new IllegalStateException("the informers could not list nodes and pods: " + e.getCause(), e.getCause());
        }
        for (Node node : nodes.getStore().list()) applyNode(node);
        for (KubePod pod : pods.list()) applyPod(pod);
        expiry = scheduler.scheduleWithFixedDelay(this::expire, period.toMillis(), period.toMillis(), TimeUnit.MILLISECONDS);
        ready = true;
        LOG.log(Level.INFO, "cluster view ready nodes={0} pods={1} allocations={2}", new Object[] {String.valueOf(ledger.nodes().size()), String.valueOf(pods.size()), String.valueOf(ledger.allocations().size())});
    }

    /** Adds a handler the pod informer feeds as well (call before {@link #start}); it sees the first list as adds. */
    public void addPodHandler(PodEvents handler) { podHandlers.add(Objects.requireNonNull(handler, "handler")); }

    /** Adds a handler the node informer feeds as well (call before {@link #start}); it sees the first list as adds. */
    public void addNodeHandler(ResourceEventHandler<Node> handler) { nodeHandlers.add(Objects.requireNonNull(handler, "handler")); }

    /**
     * Delivers a node as the node informer does (an add or update): to this view, then to the added handlers.
     * For callers without an API server (the extender-replay agreement test); the informers deliver by themselves.
     */
    public void offer(Node n) {
        applyNode(n);
        for (ResourceEventHandler<Node> h : nodeHandlers) h.onAdd(n);
    }

    /** {@link #offer(Node)} for a pod. */
    public void offer(KubePod p) {
        applyPod(p);
        for (PodEvents h : podHandlers) h.upserted(p);
    }

    /** True once informers have synced and the ledger was rebuilt from them. */
    public boolean ready() { return ready && nodes.hasSynced() && pods.hasSynced(); }

    /** Allocation annotations that could not be read so far. */
    public long malformedAllocations() { return malformed.get(); }

    /** Allocation annotations not booked so far because the pod may not have them (its resources, node or profile disagree). */
    public long distrustedAllocations() { return distrusted.get(); }

    void applyNode(Node n) {
        String name = n.getMetadata().getName();
        var ann = n.getMetadata().getAnnotations();
        String text = ann == null ? null : ann.get(Names.ANN_NODE_GPUS);
        NodeInventory inv;
        try {
            inv = InventoryCodec.decode(name, text);
        } catch (IllegalArgumentException e) {
            LOG.log(Level.WARNING, "node={0} inventory unreadable, node gets no GPUs until fixed: {1}", new Object[] {name, e.getMessage()});
            inv = new NodeInventory(name, List.of());
        }
        NodeState before = ledger.node(name);
        ledger.upsertNode(inv);
        if (before == null || !before.inventory().equals(inv))
            LOG.log(Level.INFO, "node={0} gpus={1} totalMiB={2}", new Object[] {name, String.valueOf(inv.gpus().size()), String.valueOf(inv.totalMib())});
    }

    void removeNode(Node n) {
        ledger.removeNode(n.getMetadata().getName());
        LOG.log(Level.INFO, "node={0} removed (deleted or no longer labelled {1}={2})", new Object[] {n.getMetadata().getName(),
                Names.NODE_LABEL_SCHEDULE, Names.NODE_LABEL_SCHEDULE_MPS});
    }

    void applyPod(KubePod p) {
        PodKey key = p.key();
        if (p.finished()) { forgetPod(p); return; }
        // a new pod that reuses the name of a deleted one: the old booking is gone with it
        Optional<Allocation> old = ledger.allocation(key);
        String uid = p.uid();
        if (old.isPresent() && !old.get().podUid().isEmpty() && !uid.isEmpty() && !old.get().podUid().equals(uid)) ledger.release(key);
        var ann = p.annotations();
        if (!ann.containsKey(Names.ANN_ALLOCATION) && !ann.containsKey(Names.ACK_GPU_MEM_IDX)) return;
        String node = p.nodeName();
        if (node == null) return; // a pending pod's annotation is the tenant's: the extender's reach a pod only in its Binding
        // ACK gpushare's annotations belong to pods its own scheduler placed: counted whatever their profile
        if (ann.containsKey(Names.ANN_ALLOCATION) && !ours.test(p)) {
            distrust(p, "pod " + key + " is of scheduler " + p.schedulerName() + ", which this extender does not place");
            return;
        }
        NodeState s = ledger.node(node);
        switch (BookingCheck.check(p, node, s == null ? null : s.inventory(), unit)) {
            case BookingCheck.Trusted(NodePod.Booking.Booked(Allocation booked)) -> {
                Allocation a = withDomain(booked, p);
                String over = overSize(a, s);
                if (over != null) { distrust(p, over); return; }
                seen.accept(key, a.demand());
                Optional<Allocation> have = ledger.allocation(key);
                if (have.isPresent() && have.get().samePlacement(a) && have.get().phase().compareTo(a.phase()) >= 0) return;
                ledger.restore(a);
            }
            case BookingCheck.Trusted t -> { }
            case BookingCheck.Distrusted d when d.why() == Distrust.MALFORMED -> {
                malformed.incrementAndGet();
                LOG.log(Level.WARNING, "pod={0} node={1} allocation unreadable, not counted: {2}", new Object[] {key, node, d.reason()});
            }
            case BookingCheck.Distrusted d -> distrust(p, d.reason());
        }
    }

    /** {@code a} with the serving domain of its pod: its namespace's kind now, its client UID, its GPU count. */
    private Allocation withDomain(Allocation a, KubePod p) {
        GpuDemand d = a.demand();
        GpuDemand served = d.withDomain(asks.domain(a.pod().namespace(), p.uid(), d.runAsUser(), d.gpuCount()));
        return served == d ? a : new Allocation(a.pod(), a.podUid(), a.node(), a.gpuIndices(), a.gpuUuids(), served, a.assumedAt(), a.phase());
    }

    /** Why {@code a} charges a GPU of {@code s} more than the GPU has, or null when it does not (or the node is not known yet). */
    private static String overSize(Allocation a, NodeState s) {
        if (s == null) return null;
        for (Gpu g : s.inventory().gpus())
            if (a.gpuIndices().contains(g.index()) && a.demand().chargeMib() > g.totalMib())
                return "pod " + a.pod() + " is charged " + a.demand().chargeMib() + " MiB on GPU " + g.index() + " of node " + a.node()
                        + ", which has " + g.totalMib() + " MiB: not counted";
        return null;
    }

    private void distrust(KubePod p, String reason) {
        if (distrusted.incrementAndGet() <= 1000 || LOG.isLoggable(Level.FINE))
            LOG.log(Level.WARNING, "pod={0} allocation annotation not counted: {1}", new Object[] {p.key(), reason});
    }

    void forgetPod(KubePod p) {
        PodKey key = p.key();
        Optional<Allocation> have = ledger.allocation(key);
        if (have.isEmpty()) return;
        String uid = p.uid();
        if (!uid.isEmpty() && !have.get().podUid().isEmpty() && !uid.equals(have.get().podUid())) return;
        ledger.release(key);
        LOG.log(Level.INFO, "pod={0} node={1} released mib={2}", new Object[] {key, have.get().node(), Long.toString(have.get().demand().chargeMib())});
    }

    /** Releases stale ASSUMED bookings; public so tests can drive it with a fake clock. */
    public List<Allocation> expire() {
        List<Allocation> gone = ledger.expireAssumed(this::stillWanted);
        for (Allocation a : gone) LOG.log(Level.INFO, "pod={0} node={1} assumed allocation expired", new Object[] {a.pod(), a.node()});
        return gone;
    }

    boolean stillWanted(Allocation a) {
        KubePod p = pods.get(a.pod());
        if (p == null || p.finished()) return false;
        String uid = p.uid();
        if (!a.podUid().isEmpty() && !uid.isEmpty() && !a.podUid().equals(uid)) return false;
        String node = p.nodeName();
        if (node != null) return node.equals(a.node());
        // pending, and past the TTL no bind is in flight for it any more (its annotations are the tenant's to write)
        return false;
    }

    @Override public void close() {
        ready = false;
        if (expiry != null) expiry.cancel(false);
        if (nodes != null) nodes.close();
        if (pods != null) pods.close();
    }
}
