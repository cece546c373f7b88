package io.mpshare.deviceplugin.allocation;

import io.mpshare.core.MemoryUnit;
import io.mpshare.core.ledger.Allocation;
import io.mpshare.core.model.NodeInventory;
import io.mpshare.core.model.PodKey;
import io.mpshare.deviceplugin.allocation.Candidate.Claims;
import io.mpshare.kube.node.NodeBookings;
import io.mpshare.kube.node.NodePod;

import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * The node's side of Allocate that outlives one call: the pods kubelet may be admitting ({@link WaitingPods}, from
 * the checked bookings of {@link NodeBookings}, which it listens to), which of
 * their containers this process answered ({@link Claims}, set by compare-and-set, no lock), the MPS colours given, what
 * each container was answered ({@link Answered}, told to the policer) and the log of answers by device IDs
 * ({@link AnswerLog}). {@link AllocationManager} decides calls over it; the {@link Reconciler} corrects it from
 * pod-resources. Neither needs the other.
 */
public final class AllocationBook implements NodeBookings.Listener {
    private final String node;
    private final MemoryUnit unit;
    private final NodeInventory hardware;
    private final Supplier<String> colour;
    private final AnswerLog log;
    private final NodeBookings bookings;
    private final WaitingPods waiting;
    private final Answered answered;
    private final ConcurrentHashMap<String, Claims> claims = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, String> colours = new ConcurrentHashMap<>();

    /**
     * @param bookings this node's checked bookings (add this book to its listeners)
     * @param colour   the MPS colour new containers are sent to now
     * @param sink     the policer, told when a pod was answered on other GPUs than its booking names
     */
    public AllocationBook(NodeBookings bookings, MemoryUnit unit, NodeInventory hardware, Supplier<String> colour, AnswerLog log, AnswerSink sink) {
        this.bookings = bookings;
        this.node = bookings.node();
        this.unit = unit;
        this.hardware = hardware;
        this.colour = colour;
        this.log = log;
        this.answered = new Answered(hardware, sink);
        this.waiting = new WaitingPods(unit, this::forgotten);
    }

    public String node() { return node; }

    public MemoryUnit unit() { return unit; }

    public NodeInventory hardware() { return hardware; }

    public AnswerLog answerLog() { return log; }

    /** The colour new containers are sent to now. */
    String activeColour() { return colour.get(); }

    // ---- bookings side ------------------------------------------------------------------------------------------

    @Override public void changed(NodePod pod) { waiting.changed(pod); }

    @Override public void deleted(NodePod pod) { waiting.deleted(pod); }

    private void forgotten(String uid) {
        claims.remove(uid);
        colours.remove(uid);
        answered.forget(uid);
    }

    // ---- for the manager ------------------------------------------------------------------------------------------

    /** Waiting pods, part-answered first, then by arrival. */
    List<Candidate> ordered() { return waiting.ordered(c -> claimsOf(c.uid()).started()); }

    Optional<Candidate> candidate(String uid) { return waiting.candidate(uid); }

    /** An unplaced pod was refused: no later call is meant for it. */
    void refused(String uid) { waiting.refused(uid); }

    Claims claimsOf(String uid) { return claims.getOrDefault(uid, Claims.NONE); }

    Map<String, Claims> claims() { return claims; }

    /** Claims container {@code i} of {@code c} for this call; false when another call has it. */
    boolean claim(Candidate c, int i) {
        while (true) {
            Claims old = claimsOf(c.uid());
            if (old.has(i)) return false;
            Claims next = old.with(i, c.units().length);
            boolean won = old == Claims.NONE ? claims.putIfAbsent(c.uid(), next) == null : claims.replace(c.uid(), old, next);
            if (won) return true;
        }
    }

    /** Container {@code container} of {@code c} was answered on {@code gpus}, sent to {@code given}. */
    void answered(Candidate c, String container, List<Integer> gpus, String given) {
        colours.merge(c.uid(), given, AllocationBook::union);
        answered.put(c, container, gpus);
    }

    /** "blue" ∪ "green" = "blue,green": a pod whose containers straddled a colour switch names both. */
    static String union(String had, String more) {
        return Arrays.asList(had.split(",")).contains(more) ? had : had + "," + more;
    }

    // ---- for the reconciler ---------------------------------------------------------------------------------------

    /** The pod's booking as counted now (any phase), or empty. */
    public Optional<Allocation> allocationOf(PodKey pod) { return bookings.bookingOf(pod); }

    /** Whether this process answered every GPU container of the pod. */
    public boolean fullyAnswered(String uid) { return claimsOf(uid).complete(); }

    /** The colour(s) the pod's containers were given, or the active colour when this process answered none. */
    public String coloursOf(String uid) { return colours.getOrDefault(uid, colour.get()); }

    /**
     * pod-resources says {@code realPod}'s container {@code realContainer} holds the IDs answered as {@code wrong}:
     * the claim moves there (so the pod first guessed is matched again), and the policer is told.
     */
    public void reassign(Answer wrong, Allocation real, String realContainer, List<Integer> gpus) {
        answered.remove(wrong.uid(), wrong.container(), wrong.allocation());
        Candidate w = Candidate.placed(wrong.allocation(), unit, 0);
        int wi = w.indexOf(wrong.container());
        if (wi >= 0) claims.computeIfPresent(wrong.uid(), (k, cl) -> cl.without(wi));
        Candidate r = Candidate.placed(real, unit, 0);
        int ri = r.indexOf(realContainer);
        if (ri >= 0) claim(r, ri);
        answered.put(r, realContainer, gpus);
    }

    /**
     * kubelet holds devices for these containers of the pod (pod-resources) but this process did not answer them (it
     * did before a restart, or the claim was lost): they are admitted and must never be matched again.
     */
    public void admitted(Allocation a, List<String> containers) {
        Candidate c = Candidate.placed(a, unit, 0);
        for (String name : containers) {
            int i = c.indexOf(name);
            if (i >= 0) claim(c, i);
        }
    }

    /** Records a correction the reconciler wrote, so the next pass (and the ceiling, and the policer) sees it before the watch echoes it. */
    public void corrected(Allocation a) { bookings.corrected(a); }

    /** Whether this process answered the container (by name) of the pod. */
    public boolean answeredContainer(Allocation a, String container) {
        int i = Candidate.placed(a, unit, 0).indexOf(container);
        return i >= 0 && claimsOf(a.podUid()).has(i);
    }

    public Map<String, List<Integer>> answeredGpus(String uid) { return answered.of(uid); }

    public int candidateCount() { return waiting.size(); }
}
