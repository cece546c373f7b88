package io.mpshare.deviceplugin.allocation;

import io.fabric8.kubernetes.api.model.Pod;
import io.mpshare.core.MemoryUnit;
import io.mpshare.core.Names;
import io.mpshare.core.codec.AllocationCodec.Decoded;
import io.mpshare.core.ledger.Allocation;
import io.mpshare.core.ledger.Phase;
import io.mpshare.core.model.ContainerShare;
import io.mpshare.core.model.NodeInventory;
import io.mpshare.core.model.PodKey;
import io.mpshare.deviceplugin.allocation.Candidate.Claims;
import io.mpshare.deviceplugin.api.v1beta1.ContainerAllocateResponse;
import io.mpshare.deviceplugin.cluster.PodWrites;
import io.mpshare.deviceplugin.cluster.PodListener;
import io.mpshare.deviceplugin.kubelet.ResourceHandler.AllocateRefused;

import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * Finds the pod a {@code gpu-mem} Allocate call is for, answers it, and marks the pod assigned.
 *
 * <p>Implementation notes.
 * <ul>
 * <li><b>Where pods come from.</b> Only the node's pod informer ({@link PodListener}): each event decodes the pod's
 *     allocation once and files the pod as a {@link Candidate} (bound here, allocation readable and naming this node,
 *     not assigned) or as a problem with a reason (asks gpu-mem without an allocation, malformed, other node).
 *     Allocate reads these maps; it never calls the API server. If nothing matches, it waits up to
 *     {@code informerWait} for the next informer event (kubelet can call a moment before our watch delivers the pod).</li>
 * <li><b>Matching.</b> kubelet tells only the device IDs; their count is the container's request in units. Among
 *     candidates with an unanswered container of exactly that many units: a pod already part-answered first (kubelet
 *     admits one pod at a time, init containers first), then the oldest assume time, then the pod key. Inside the pod,
 *     its first unanswered container of that size.</li>
 * <li><b>Concurrency, no node-wide lock.</b> A container is claimed with a compare-and-set on the pod's immutable
 *     {@link Claims}; two racing calls cannot take the same container, and a lost race moves on to the next
 *     candidate. Claims live in memory until the pod is deleted, so a pod is never answered twice even before the
 *     {@code assigned} annotation comes back through the watch.</li>
 * <li><b>Twins.</b> Two pods with identical requests can be answered in the other's place (Allocate cannot tell them
 *     apart). Every answer is logged by device-ID set ({@link AnswerLog}); {@link Reconciler} reads the pod-resources
 *     API shortly after and rewrites annotations to the GPU each container really got.</li>
 * <li><b>Writes.</b> When a pod's last GPU container is answered, {@code mpshare.io/assigned=true} and
 *     {@code mpshare.io/mps-colour} (the MPS daemon colour its containers were given; {@code mpshare upgrade-node}
 *     counts the old colour's clients from it) are merge-patched together, asynchronously ({@link PodWrites});
 *     the reconciler re-marks pods whose patch was lost.</li>
 * </ul>
 */
public final class AllocationManager implements PodListener {
    private final String node;
    private final MemoryUnit unit;
    private final NodeInventory hardware;
    private final Supplier<String> colour;
    private final AnswerBuilder answers;
    private final PodWrites annotator;
    private final AnswerLog log;
    private final InstantSource clock;
    private final ChangeWaiter waiter;
    private final Duration informerWait;
    private volatile Runnable afterAllocate = () -> {};

    private final ConcurrentHashMap<String, Candidate> candidates = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, Claims> claims = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, String> problems = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<PodKey, Allocation> known = new ConcurrentHashMap<>();
    /** Pod UID → the MPS colour(s) its answered containers were given (recorded with {@code assigned}). */
    private final ConcurrentHashMap<String, String> colours = new ConcurrentHashMap<>();

    /** How Allocate waits for the informer: {@code NodePodCache} in production. */
    public interface ChangeWaiter {
        long version();

        boolean awaitChange(long seen, Duration timeout) throws InterruptedException;

        ChangeWaiter NONE = new ChangeWaiter() {
            @Override public long version() { return 0; }

            @Override public boolean awaitChange(long seen, Duration timeout) { return false; }
        };
    }

    public AllocationManager(String node, MemoryUnit unit, NodeInventory hardware, Supplier<String> colour, AnswerBuilder answers,
                             PodWrites annotator, AnswerLog log, InstantSource clock, ChangeWaiter waiter, Duration informerWait) {
        this.node = node;
        this.unit = unit;
        this.hardware = hardware;
        this.colour = colour;
        this.answers = answers;
        this.annotator = annotator;
        this.log = log;
        this.clock = clock;
        this.waiter = waiter;
        this.informerWait = informerWait;
    }

    /** Run after each answered container (the reconciler's trigger). */
    public void afterAllocate(Runnable r) { afterAllocate = r; }

    public AnswerLog answerLog() { return log; }

    public MemoryUnit unit() { return unit; }

    private record Pick(Candidate candidate, int index, Claims claims) {}

    /** Answers one container that was given {@code deviceIds}. */
    public ContainerAllocateResponse allocate(List<String> deviceIds) throws AllocateRefused {
        long want = deviceIds.size();
        Pick p = claimWaiting(want);
        if (p == null) throw new AllocateRefused(explain(want));
        return answer(p, deviceIds);
    }

    /** Answers at once if a waiting pod matches, without waiting for the informer; empty otherwise (nothing claimed). */
    public Optional<ContainerAllocateResponse> tryAllocate(List<String> deviceIds) {
        Pick p = claim(deviceIds.size());
        return p == null ? Optional.empty() : Optional.of(answer(p, deviceIds));
    }

    private ContainerAllocateResponse answer(Pick p, List<String> deviceIds) {
        Candidate c = p.candidate();
        ContainerShare share = c.order().get(p.index());
        String given = colour.get();
        ContainerAllocateResponse resp = answers.build(c.allocation(), share, given);
        String podColours = colours.merge(c.uid(), given, AllocationManager::union);
        log.record(deviceIds, new Answer(c.pod(), c.uid(), share.name(), c.allocation(), clock.instant()));
        if (p.claims().complete()) annotator.markAssigned(c.pod(), podColours);
        afterAllocate.run();
        return resp;
    }

    /** The candidate the next Allocate of {@code units} would take, without taking it (GetPreferredAllocation). */
    public Optional<Allocation> peek(long units) {
        for (Candidate c : ordered()) if (c.firstOpen(units, claims.getOrDefault(c.uid(), Claims.NONE)) >= 0) return Optional.of(c.allocation());
        return Optional.empty();
    }

    /** "blue" ∪ "green" = "blue,green": a pod whose containers straddled a colour switch names both. */
    static String union(String had, String more) {
        return java.util.Arrays.asList(had.split(",")).contains(more) ? had : had + "," + more;
    }

    private Pick claimWaiting(long want) throws AllocateRefused {
        long deadline = System.nanoTime() + informerWait.toNanos();
        while (true) {
            long seen = waiter.version();
            Pick p = claim(want);
            if (p != null) return p;
            long left = deadline - System.nanoTime();
            try {
                if (left <= 0 || !waiter.awaitChange(seen, Duration.ofNanos(left))) return null;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AllocateRefused("mpshare device plugin was interrupted while waiting for the pod list");
            }
        }
    }

    private Pick claim(long want) {
        for (Candidate c : ordered()) {
            while (true) {
                Claims old = claims.getOrDefault(c.uid(), Claims.NONE);
                int i = c.firstOpen(want, old);
                if (i < 0) break;
                Claims next = old.with(i, c.order().size());
                boolean won = old == Claims.NONE ? claims.putIfAbsent(c.uid(), next) == null : claims.replace(c.uid(), old, next);
                if (won) return new Pick(c, i, next);
            }
        }
        return null;
    }

    private List<Candidate> ordered() {
        var list = new ArrayList<>(candidates.values());
        list.sort(Comparator.<Candidate>comparingInt(c -> claims.getOrDefault(c.uid(), Claims.NONE).started() ? 0 : 1)
                .thenComparing(c -> c.allocation().assumedAt())
                .thenComparing(Candidate::pod));
        return list;
    }

    private String explain(long want) {
        var sb = new StringBuilder("mpshare: no pod bound to node ").append(node).append(" is waiting for a container of ")
                .append(want).append(' ').append(unit.symbol()).append(" of ").append(Names.RESOURCE_GPU_MEM).append('.');
        int shown = 0;
        for (String reason : problems.values()) {
            if (shown++ == 5) break;
            sb.append(' ').append(reason).append('.');
        }
        var waiting = new ArrayList<String>();
        for (Candidate c : ordered()) {
            Claims cl = claims.getOrDefault(c.uid(), Claims.NONE);
            var open = new ArrayList<Long>();
            for (int i = 0; i < c.units().length; i++) if (!cl.has(i)) open.add(c.units()[i]);
            if (!open.isEmpty() && waiting.size() < 5) waiting.add(c.pod() + " " + open);
        }
        if (!waiting.isEmpty()) sb.append(" Pods waiting for other amounts (").append(unit.symbol()).append("): ").append(String.join(", ", waiting)).append('.');
        sb.append(" A pod that asks ").append(Names.RESOURCE_GPU_MEM)
                .append(" must be placed by the mpshare scheduler extender (do not preset spec.nodeName).");
        return sb.toString();
    }

    // ---- informer side ------------------------------------------------------------------------------------------

    @Override public void upserted(Pod pod) {
        String uid = pod.getMetadata().getUid();
        PodKey key = PodConversion.key(pod);
        String phase = pod.getStatus() == null ? null : pod.getStatus().getPhase();
        if ("Succeeded".equals(phase) || "Failed".equals(phase)) { forget(uid, key); return; }
        switch (PodConversion.decode(pod, hardware, unit)) {
            case Decoded.Found f -> found(uid, f.allocation());
            case Decoded.Malformed m -> problem(uid, key, phase, m.reason());
            case Decoded.None n -> {
                if (PodConversion.asksGpuMem(pod))
                    problem(uid, key, phase, "Pod " + key + " asks " + Names.RESOURCE_GPU_MEM + " but carries no " + Names.ANN_ALLOCATION
                            + ": it was not placed by the mpshare scheduler extender (spec.nodeName preset, or another scheduler)");
                else forget(uid, key);
            }
        }
    }

    private void found(String uid, Allocation a) {
        known.put(a.pod(), a);
        problems.remove(uid);
        if (!a.node().equals(node)) {
            candidates.remove(uid);
            problems.put(uid, "Pod " + a.pod() + " has an allocation for node " + a.node() + ", not " + node);
        } else if (a.phase() == Phase.ASSIGNED) {
            candidates.remove(uid);
        } else {
            candidates.put(uid, Candidate.of(a, unit));
        }
    }

    private void problem(String uid, PodKey key, String phase, String reason) {
        candidates.remove(uid);
        known.remove(key);
        if (phase == null || "Pending".equals(phase)) problems.put(uid, reason); else problems.remove(uid);
    }

    private void forget(String uid, PodKey key) {
        candidates.remove(uid);
        problems.remove(uid);
        claims.remove(uid);
        colours.remove(uid);
        known.remove(key);
    }

    @Override public void deleted(Pod pod) { forget(pod.getMetadata().getUid(), PodConversion.key(pod)); }

    // ---- for the reconciler ---------------------------------------------------------------------------------------

    /** The pod's allocation as last seen (any phase), or empty. */
    public Optional<Allocation> allocationOf(PodKey pod) { return Optional.ofNullable(known.get(pod)); }

    /** Whether this process answered every GPU container of the pod. */
    public boolean fullyAnswered(String uid) { return claims.getOrDefault(uid, Claims.NONE).complete(); }

    /**
     * kubelet already holds devices for every app container of this pod (pod-resources) but this process never
     * answered it (it did before a restart): it is admitted, so it must never be matched again.
     */
    public void admittedElsewhere(Allocation a) {
        candidates.remove(a.podUid());
        Candidate c = Candidate.of(a, unit);
        long all = c.order().size() >= 64 ? -1L : (1L << c.order().size()) - 1;
        claims.put(a.podUid(), new Claims(all, c.order().size()));
        known.put(a.pod(), a.withPhase(Phase.ASSIGNED));
    }

    /** Records a correction the reconciler wrote, so the next pass sees it before the watch echoes it. */
    public void corrected(Allocation a) { known.put(a.pod(), a); }

    public int candidateCount() { return candidates.size(); }
}
