package io.mpshare.deviceplugin.domains;

import io.mpshare.core.isolation.FaultDomains;
import io.mpshare.core.isolation.FaultDomains.Choice;
import io.mpshare.core.ledger.Allocation;
import io.mpshare.core.model.Gpu;
import io.mpshare.core.model.NodeInventory;
import io.mpshare.deviceplugin.allocation.Daemons;
import io.mpshare.deviceplugin.domains.DomainPlan.Desired;
import io.mpshare.deviceplugin.domains.DomainPlan.Key;
import io.mpshare.deviceplugin.domains.DomainReport.State;
import io.mpshare.kube.node.NodeBookings;
import io.mpshare.kube.node.NodePod;
import io.mpshare.mps.Colour;
import io.mpshare.mps.DomainPaths;
import io.mpshare.mps.MpsException;

import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.logging.Logger;

/**
 * Keeps each colour's MPS fault domains in step with this node's bookings, and tells Allocate which daemon serves a pod
 * and whether it serves ({@link Daemons}).
 *
 * <h2>Implementation notes</h2>
 * <b>A pod's domain.</b> When a pod is first seen booked ({@link NodeBookings}: demand checked against its own
 * resources) its domain is chosen ({@link FaultDomains#choose}: its namespace's kind, {@code pod} kind when its workload
 * is a fault suspect, the node daemon when booked on several GPUs) and kept for the pod's life: its containers keep the
 * pipe directory they were answered. The id is per GPU: the GPU of the device IDs kubelet gave, told at Allocate
 * ({@link #daemonFor}), else the booked one.
 *
 * <p><b>Rounds.</b> {@link #round} reads each colour's domains, tells the {@link FaultWatch} what changed, and asks for
 * the difference: a domain the bookings ask and the supervisor lacks (or drains) is {@code PUT}, one whose ceiling or
 * thread share differs while it serves is {@code PUT} again, one the supervisor runs that no pod asks any more is
 * {@code DELETE}d (it drains: its daemon quits when its last client has gone). The ceiling and share of a domain are
 * {@link DomainPlan}'s: the largest cap and share booked among its own pods. A pod counts from the moment the informer
 * sees it booked — before kubelet's Allocate, so the domain is usually serving when its container is admitted — until
 * it is Succeeded, Failed or gone. Rounds run after each pod change (coalesced) and every {@code period}, which also
 * refreshes the states Allocate reads. Calls to the supervisors run on {@code calls} (a call per domain at a time),
 * never on the round's thread: a daemon's start never delays another domain.
 *
 * <p><b>Allocate.</b> {@link #daemonFor} never blocks: it reads the last states. A domain serves when its supervisor
 * last said SERVING; its pipe directory is the run dir's layout ({@link DomainPaths}), not the path the reply names; otherwise the reason (starting, faulted, stalled, supervisor not answering) is what a refused
 * Allocate says. {@link #version} moves on every change, for the bounded wait.
 *
 * <p><b>Failures.</b> A colour whose supervisor does not answer is skipped (its domains are not known, so their pods are
 * not answered). A domain the supervisor refuses is logged once per reason and asked again next round. Nothing is
 * deleted before the pod informer has listed the node's pods: {@link #start} is called after it has.
 */
public final class DomainController implements NodeBookings.Listener, Daemons, AutoCloseable {
    private static final Logger LOG = Logger.getLogger(DomainController.class.getName());

    /** How often the states are read without a pod change: a fault or a stall reaches Allocate and the pods within this. */
    public static final Duration DEFAULT_PERIOD = Duration.ofMillis(500);

    /**
     * What the controller works with.
     *
     * @param colours        each colour's supervisor, in the order rounds visit them
     * @param namespaceKinds the domain kind each namespace asks ({@code NamespaceKinds}: its label, or the cluster default)
     * @param coloursOf      the colour(s) a pod (by UID) was sent to, or is sent to now
     * @param calls          where supervisor calls run (virtual threads in production)
     * @param published      told the node's domains after each round (the Node's annotation)
     */
    public record Parts(String node, NodeInventory hardware, Path runDir, Map<String, DomainSupervisor> colours,
                        Function<String, Choice> namespaceKinds, Function<String, Set<String>> coloursOf, FaultWatch faults,
                        Executor calls, Consumer<DomainsView> published) {
        public Parts { colours = new LinkedHashMap<>(colours); }
    }

    private final Parts parts;
    private final Map<String, PodDomain> pods = new ConcurrentHashMap<>();
    private final Map<String, Map<String, DomainReport>> reports = new ConcurrentHashMap<>();
    private final Map<String, String> unreachable = new ConcurrentHashMap<>();
    private final Map<Key, String> refusals = new ConcurrentHashMap<>();
    private final Set<Key> inFlight = ConcurrentHashMap.newKeySet();
    private final Object changes = new Object();
    private final AtomicInteger wanted = new AtomicInteger();
    private long version;
    private volatile Map<Key, Desired> plan = Map.of();
    private volatile ScheduledExecutorService exec;

    public DomainController(Parts parts) { this.parts = parts; }

    // ---- bookings ---------------------------------------------------------------------------------------------------

    @Override public void changed(NodePod p) {
        if (p.booking() instanceof NodePod.Booking.Booked b && !p.finished()) {
            pods.compute(p.uid(), (uid, had) -> had != null ? had.withBooking(b.allocation()) : first(p, b.allocation()));
        } else if (pods.remove(p.uid()) == null) {
            return;
        }
        changedNow();
        requestRound();
    }

    @Override public void deleted(NodePod p) {
        if (pods.remove(p.uid()) == null) return;
        changedNow();
        requestRound();
    }

    private PodDomain first(NodePod p, Allocation a) {
        var member = new FaultDomains.Member(p.key().namespace(), p.uid(), a.demand().runAsUser(), parts.node());
        boolean suspect = parts.faults().suspect(p.workload());
        Choice c = FaultDomains.choose(member, parts.namespaceKinds().apply(p.key().namespace()), suspect, a.gpuIndices().size());
        if (suspect) LOG.info("pod " + p.key() + " of " + p.workload() + ", a fault suspect, gets an MPS domain of its own");
        return new PodDomain(p.key(), p.uid(), p.workload(), c, a.demand().runAsUser(), a, List.of());
    }

    /** The pod's domain as chosen, or null when the pod is not booked here. */
    public PodDomain podDomain(String uid) { return pods.get(uid); }

    /**
     * Whether the colour's node daemon serves the booked pod {@code uid}: its kind or GPU count says so, or it is not
     * known here yet (counted where it may be served: a node daemon's ceiling is then high enough for it).
     */
    public boolean onNodeDaemon(String uid) {
        PodDomain p = pods.get(uid);
        return p == null || p.onNodeDaemon();
    }

    /** The domains the bookings asked at the last round. */
    public Map<Key, Desired> plan() { return plan; }

    // ---- Allocate ---------------------------------------------------------------------------------------------------

    @Override public Served daemonFor(String podUid, String colour, List<String> gpuUuids) {
        PodDomain p = pods.get(podUid);
        if (p == null) return new Served.NotReady("?", "its booking is not counted on this node yet");
        List<Integer> gpus = gpuUuids.stream().map(u -> parts.hardware().gpuByUuid(u).index()).toList();
        if (!gpus.equals(p.gpus())) {
            pods.computeIfPresent(podUid, (k, v) -> v.withAsked(gpus));   // the domain of the GPU kubelet gave
            changedNow();
            requestRound();
            p = pods.get(podUid);
            if (p == null) return new Served.NotReady("?", "its booking is not counted on this node any more");
        }
        if (p.onNodeDaemon()) return new Served.Ready(nodePipe(colour).toString(), FaultDomains.NODE_DAEMON);
        String id = p.choice().id(gpuUuids.getFirst());
        Map<String, DomainReport> byId = reports.get(colour);
        if (byId == null) return new Served.NotReady(id, "the " + colour + " MPS supervisor does not answer (" + unreachable.getOrDefault(colour, "not read yet") + ")");
        DomainReport r = byId.get(id);
        Key k = new Key(colour, id);
        if (r == null) return new Served.NotReady(id, refusals.containsKey(k)
                ? "the " + colour + " MPS supervisor refused its domain " + id + ": " + refusals.get(k)
                : "its domain " + id + " on GPU " + gpus.getFirst() + " is being started");
        if (r.state() == State.SERVING) return new Served.Ready(domainPipe(colour, id).toString(), id);
        return new Served.NotReady(id, describe(r, gpus.getFirst()));
    }

    static String describe(DomainReport r, int gpu) {
        String d = "its domain " + r.id() + " on GPU " + gpu;
        return switch (r.state()) {
            case FAULTED -> d + " faulted" + (r.lastFault() == null || r.lastFault().at() == null ? "" : " at " + r.lastFault().at())
                    + ": its clients are being ended and MPS refuses new ones until they have exited";
            case STALLED -> d + " stopped answering: its control socket is held by " + (r.stalledBy().isEmpty() ? "an unknown process"
                    : r.stalledBy().stream().map(h -> "pid " + h.pid() + " (uid " + h.uid() + ")").toList());
            case STARTING -> d + " is starting";
            case DRAINING -> d + " is draining";
            case DOWN -> d + ": its daemon exited and is being restarted";
            default -> d + " is " + r.state();
        };
    }

    private Path nodePipe(String colour) { return Colour.parse(colour).pipeDir(parts.runDir()); }

    /** The layout's path, never one read from a reply: a container is only ever given a folder under the run dir. */
    private Path domainPipe(String colour, String id) { return DomainPaths.of(Colour.parse(colour), parts.runDir(), id).pipeDir(); }

    @Override public long version() {
        synchronized (changes) { return version; }
    }

    @Override public boolean awaitChange(long seen, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        synchronized (changes) {
            while (version == seen) {
                long left = deadline - System.nanoTime();
                if (left <= 0) return false;
                TimeUnit.NANOSECONDS.timedWait(changes, left);
            }
            return true;
        }
    }

    private void changedNow() {
        synchronized (changes) {
            version++;
            changes.notifyAll();
        }
    }

    // ---- rounds -----------------------------------------------------------------------------------------------------

    /** One round on the calling thread (tests; production calls it from the executor). */
    public synchronized void round() {
        Map<Key, Desired> want = DomainPlan.of(pods.values(), parts.coloursOf(), parts.hardware());
        plan = want;
        for (Map.Entry<String, DomainSupervisor> e : parts.colours().entrySet()) {
            String colour = e.getKey();
            List<DomainReport> got;
            try {
                got = e.getValue().domains();
            } catch (MpsException x) {
                reports.remove(colour);
                if (!x.getMessage().equals(unreachable.put(colour, x.getMessage())))
                    LOG.info("domains: the " + colour + " MPS supervisor does not answer (skipped until it does): " + x.getMessage());
                continue;
            }
            if (unreachable.remove(colour) != null) LOG.info("domains: the " + colour + " MPS supervisor answers");
            Map<String, DomainReport> byId = new ConcurrentHashMap<>();
            for (DomainReport r : got) byId.put(r.id(), r);
            reports.put(colour, byId);
            parts.faults().observe(colour, byId, want);
            ask(colour, e.getValue(), byId, want);
        }
        changedNow();
        parts.published().accept(view());
    }

    private void ask(String colour, DomainSupervisor supervisor, Map<String, DomainReport> byId, Map<Key, Desired> want) {
        for (Desired d : want.values()) {
            if (!d.key().colour().equals(colour)) continue;
            DomainReport r = byId.get(d.key().id());
            boolean differs = r != null && r.state() == State.SERVING && (r.ceilingMib() != d.ask().ceilingMib() || r.threadPercent() != d.ask().threadPercent());
            if (r == null || r.state() == State.DRAINING || differs) call(d.key(), () -> put(supervisor, d));
        }
        for (DomainReport r : byId.values()) {
            Key k = new Key(colour, r.id());
            if (!want.containsKey(k) && r.state() != State.DRAINING) call(k, () -> delete(supervisor, k));
        }
    }

    private void call(Key k, Runnable task) {
        if (!inFlight.add(k)) return;
        try {
            parts.calls().execute(() -> {
                try {
                    task.run();
                } finally {
                    inFlight.remove(k);
                    changedNow();
                }
            });
        } catch (RejectedExecutionException x) {
            inFlight.remove(k);   // shutting down
        }
    }

    private void put(DomainSupervisor supervisor, Desired d) {
        Key k = d.key();
        try {
            DomainReport r = supervisor.put(k.id(), d.ask());
            reports.computeIfAbsent(k.colour(), c -> new ConcurrentHashMap<>()).put(k.id(), r);
            if (refusals.remove(k) != null) LOG.info("domains: the " + k.colour() + " MPS supervisor took domain " + k.id());
            LOG.fine(() -> "domain " + k + " on GPU " + d.gpu() + " (" + d.kind().label() + " " + d.who() + "): ceiling " + d.ask().ceilingMib()
                    + " MiB, threads " + d.ask().threadPercent() + " %, " + r.state());
        } catch (MpsException x) {
            if (!x.getMessage().equals(refusals.put(k, x.getMessage())))
                LOG.warning("domains: the " + k.colour() + " MPS supervisor did not take domain " + k.id() + " (" + d.kind().label() + " "
                        + d.who() + ", GPU " + d.gpu() + "): " + x.getMessage());
        }
    }

    private void delete(DomainSupervisor supervisor, Key k) {
        try {
            supervisor.delete(k.id());
            LOG.fine(() -> "domain " + k + " drains: no pod of this node asks it any more");
        } catch (MpsException x) {
            LOG.info("domains: draining " + k + " failed (asked again next round): " + x.getMessage());
        }
    }

    /**
     * The GPUs that have a FAULTED domain now, each with why: for {@code --domain-fault-health gpu}, which reports a
     * GPU's devices Unhealthy while one of its domains tears down a fault (docs/decisions/domain-health.md).
     */
    public Map<Integer, String> faultedGpus() {
        Map<Integer, String> out = new TreeMap<>();
        reports.forEach((colour, byId) -> byId.values().forEach(r -> {
            if (r.state() != State.FAULTED || r.gpu() == null) return;
            Gpu g = parts.hardware().gpuByUuid(r.gpu());
            if (g != null) out.merge(g.index(), "MPS domain " + r.id() + " on GPU " + g.index() + " faulted", (a, b) -> a + ", " + b);
        }));
        return out;
    }

    /** What the node's domains look like now: the plan, the supervisors' states, the pods on the node daemon, the suspects. */
    public DomainsView view() {
        Map<String, Map<String, DomainReport>> copy = new LinkedHashMap<>();
        reports.forEach((c, m) -> copy.put(c, Map.copyOf(m)));
        return new DomainsView(parts.node(), parts.hardware(), plan, copy, DomainPlan.onNodeDaemon(pods.values()), parts.faults().suspects());
    }

    /**
     * Rounds on {@code exec} after each pod change and every {@code period}; requests made while a round runs are folded
     * into one more round, so the controller holds at most one of {@code exec}'s threads at a time.
     */
    public void start(ScheduledExecutorService exec, Duration period) {
        this.exec = exec;
        exec.scheduleWithFixedDelay(this::requestRound, 0, period.toMillis(), TimeUnit.MILLISECONDS);
    }

    private void requestRound() {
        ScheduledExecutorService e = exec;
        if (e == null || wanted.getAndIncrement() > 0) return;
        try {
            e.execute(this::drain);
        } catch (RejectedExecutionException ignored) {
            wanted.set(0);
        }
    }

    private void drain() {
        int seen;
        do {
            seen = wanted.get();
            try {
                round();
            } catch (RuntimeException x) {
                LOG.warning("domain round failed: " + x);
            }
        } while (wanted.addAndGet(-seen) > 0);
    }

    @Override public void close() { exec = null; }
}
