package io.mpshare.deviceplugin.allocation;

import io.mpshare.core.Names;
import io.mpshare.core.codec.AllocationCodec;
import io.mpshare.core.ledger.Allocation;
import io.mpshare.core.ledger.Phase;
import io.mpshare.core.model.ContainerShare;
import io.mpshare.core.model.PodKey;
import io.mpshare.deviceplugin.cluster.PodWrites;
import io.mpshare.deviceplugin.allocation.PodResources.Holding;

import java.io.UncheckedIOException;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Makes the record agree with what kubelet gave, from the pod-resources API (entries grouped per pod and container).
 *
 * <p>Implementation notes. pod-resources is the truth: it names the pod and container that hold each device ID, and
 * the Allocate answer was built from those IDs, so env, pod-resources and (after this) the annotation agree. Per pass:
 * <ol>
 * <li>IDs answered in another pod's name (the guess of who kubelet was admitting was wrong): the claim moves to the
 *     pod kubelet names, so the pod first guessed is matched again when kubelet admits it.</li>
 * <li>A pod whose containers all hold IDs of one GPU set other than its booking: its {@code mpshare.io/allocation}
 *     and ACK index are rewritten to those GPUs, with its own demand (the checked booking's: derived from the pod's
 *     resources, never the annotation's numbers; {@code NodeBookings}). This is the check of the one part of a booking
 *     that is taken from the annotation, its GPU set. A booking that already names them is never
 *     rewritten. Containers on different GPU sets (mixed) cannot be one annotation: logged once, left; the policer
 *     judges by what each container was answered.</li>
 * <li>A pod holding IDs for every GPU container that runs with the app containers, or fully answered: marked
 *     assigned with the MPS colour(s) given (also after a restart of this process: then it is never matched again).</li>
 * <li>A pod that holds {@code gpu-mem} IDs but has no allocation (placed by no extender): logged once.</li>
 * </ol>
 * Runs {@code delay} after an Allocate (coalesced), again while answers are not yet visible, and every
 * {@code period}; a failing List is logged and retried on the next run.
 */
public final class Reconciler {
    private static final Logger LOG = Logger.getLogger(Reconciler.class.getName());
    private static final Duration PENDING = Duration.ofSeconds(10);

    private final PodResources podResources;
    private final AllocationBook book;
    private final PodWrites writes;
    private final InstantSource clock;
    private final Duration answerTtl;
    private final AtomicBoolean pending = new AtomicBoolean();
    private final Set<PodKey> warned = ConcurrentHashMap.newKeySet();

    /** Outcome of one pass: bookings rewritten, pods marked assigned, mixed pods, claims moved, answers not visible yet. */
    public record Result(int corrected, int marked, int mixed, int moved, int waiting) {
        public Result(int corrected, int marked, int mixed) { this(corrected, marked, mixed, 0, 0); }

        boolean any() { return corrected + marked + mixed + moved > 0; }
    }

    /** @param answerTtl how long an answer no container holds any more is kept in the answer log */
    public Reconciler(PodResources podResources, AllocationBook book, PodWrites writes, InstantSource clock, Duration answerTtl) {
        this.podResources = podResources;
        this.book = book;
        this.writes = writes;
        this.clock = clock;
        this.answerTtl = answerTtl;
    }

    public synchronized Result reconcile() {
        List<Holding> held = podResources.holdings();
        Map<PodKey, List<Holding>> byPod = new LinkedHashMap<>();
        var heldKeys = new HashSet<String>();
        for (Holding h : held) {
            byPod.computeIfAbsent(h.pod(), k -> new ArrayList<>()).add(h);
            heldKeys.add(AnswerLog.key(h.deviceIds()));
        }
        int moved = moveClaims(held);
        int corrected = 0, marked = 0, mixed = 0;
        for (var e : byPod.entrySet()) {
            Optional<Allocation> known = book.allocationOf(e.getKey());
            if (known.isEmpty()) {
                if (warned.add(e.getKey()))
                    LOG.warning("pod " + e.getKey() + " holds " + Names.RESOURCE_GPU_MEM + " devices but no mpshare allocation: it was not placed by"
                            + " the mpshare scheduler extender; the policer treats its GPU processes as unbooked");
                continue;
            }
            switch (check(known.get(), e.getValue())) {
                case FIXED -> corrected++;
                case MARKED -> marked++;
                case MIXED -> mixed++;
                case NONE -> { }
            }
        }
        int waiting = book.answerLog().unheld(heldKeys, clock.instant().minus(PENDING));
        book.answerLog().prune(heldKeys, clock.instant().minus(answerTtl));
        return new Result(corrected, marked, mixed, moved, waiting);
    }

    /** Step 1: answers given in one pod's name whose IDs kubelet shows in another pod's container. */
    private int moveClaims(List<Holding> held) {
        int moved = 0;
        for (Holding h : held) {
            Optional<Answer> ans = book.answerLog().get(h.deviceIds());
            if (ans.isEmpty() || ans.get().pod().equals(h.pod()) && ans.get().container().equals(h.container())) continue;
            Optional<Allocation> real = book.allocationOf(h.pod());
            if (real.isEmpty()) continue;
            List<Integer> gpus = gpusOf(h);
            LOG.info("IDs answered as " + ans.get().pod() + "/" + ans.get().container() + " are held by " + h.pod() + "/" + h.container()
                    + " (kubelet admitted it first): moving the claim");
            book.reassign(ans.get(), real.get(), h.container(), gpus);
            book.answerLog().replace(h.deviceIds(), new Answer(h.pod(), real.get().podUid(), h.container(), real.get(), ans.get().at()));
            moved++;
        }
        return moved;
    }

    private enum Step { NONE, FIXED, MARKED, MIXED }

    private Step check(Allocation a, List<Holding> held) {
        var sets = new HashSet<List<Integer>>();
        var names = new ArrayList<String>();
        for (Holding h : held) {
            sets.add(gpusOf(h));
            names.add(h.container());
        }
        if (sets.size() > 1) {
            if (warned.add(a.pod()))
                LOG.warning("pod " + a.pod() + ": kubelet gave its containers devices of different GPUs " + sets
                        + "; one annotation cannot say that, so it is left as it is (each container runs with what it was given)");
            return Step.MIXED;
        }
        List<Integer> real = sets.iterator().next();
        boolean complete = holdsEveryRunningContainer(a, names) || book.fullyAnswered(a.podUid());
        if (!real.equals(a.gpuIndices())) {
            if (real.size() != a.demand().gpuCount()) {
                if (warned.add(a.pod())) LOG.warning("pod " + a.pod() + " holds devices of GPUs " + real + " but asks " + a.demand().gpuCount() + "; annotation left");
                return Step.MIXED;
            }
            fix(a, real, complete ? Phase.ASSIGNED : a.phase());
            return Step.FIXED;
        }
        if (a.phase() == Phase.ASSIGNED || !complete) return Step.NONE;
        boolean unanswered = false;
        for (String n : names) if (!book.answeredContainer(a, n)) unanswered = true;
        if (unanswered) {
            LOG.info("pod " + a.pod() + " was admitted before this process answered it (restart): marking it assigned");
            book.admitted(a, names);
        }
        writes.markAssigned(a.pod(), book.coloursOf(a.podUid()));
        book.corrected(a.withPhase(Phase.ASSIGNED));
        return Step.MARKED;
    }

    private List<Integer> gpusOf(Holding h) {
        return switch (IdShape.of(h.deviceIds(), book.hardware())) {
            case IdShape.Read.Shape s -> s.shape().gpuIndices();
            case IdShape.Read.Bad b -> List.of();
        };
    }

    /** pod-resources lists app containers (and sidecars) only: init containers that ran before are not expected. */
    private static boolean holdsEveryRunningContainer(Allocation a, List<String> held) {
        boolean any = false;
        for (ContainerShare c : a.demand().containers()) {
            if (c.init()) continue;
            any = true;
            if (!held.contains(c.name())) return false;
        }
        return any;
    }

    private void fix(Allocation mine, List<Integer> real, Phase phase) {
        var fixed = Answered.asAnswered(mine, real, book.hardware()).withPhase(phase);
        LOG.info("pod " + mine.pod() + " really got GPU " + real + " (annotated " + mine.gpuIndices() + "): correcting");
        var ann = new LinkedHashMap<>(AllocationCodec.encode(fixed, book.unit()));
        ann.remove(Names.ANN_ASSUME_TIME);
        ann.remove(Names.ACK_GPU_MEM_ASSUME_TIME);
        ann.put(Names.ANN_MPS_COLOUR, book.coloursOf(mine.podUid()));
        writes.patch(mine.pod(), ann);
        book.corrected(fixed);
    }

    /** Runs a pass {@code delay} from now unless one is already pending. */
    public void soon(ScheduledExecutorService exec, Duration delay) {
        if (!pending.compareAndSet(false, true)) return;
        exec.schedule(() -> {
            pending.set(false);
            Result r = safe();
            if (r != null && r.waiting() > 0) soon(exec, delay.multipliedBy(2).compareTo(Duration.ofSeconds(2)) > 0 ? Duration.ofSeconds(2) : delay.multipliedBy(2));
        }, delay.toMillis(), TimeUnit.MILLISECONDS);
    }

    public void start(ScheduledExecutorService exec, Duration period) {
        exec.scheduleWithFixedDelay(this::safe, period.toMillis(), period.toMillis(), TimeUnit.MILLISECONDS);
    }

    private Result safe() {
        try {
            Result r = reconcile();
            if (r.any()) LOG.info("reconciled from pod-resources: " + r);
            return r;
        } catch (UncheckedIOException e) {   // kubelet not answering: a state, not a bug
            LOG.warning("reconcile from pod-resources failed, retrying later: " + e.getMessage());
            return null;
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "reconcile from pod-resources failed, retrying later: " + e.getMessage(), e);
            return null;
        }
    }
}
