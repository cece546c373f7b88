package io.mpshare.deviceplugin.allocation;

import io.mpshare.core.MemoryUnit;
import io.mpshare.core.Names;
import io.mpshare.core.codec.AllocationCodec;
import io.mpshare.core.ledger.Allocation;
import io.mpshare.core.ledger.Phase;
import io.mpshare.core.model.PodKey;
import io.mpshare.deviceplugin.cluster.PodWrites;
import io.mpshare.deviceplugin.kubelet.PodResourcesClient.Holding;

import java.time.Duration;
import java.time.InstantSource;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Makes pod annotations name the GPU each container really got, from the kubelet pod-resources API.
 *
 * <p>Implementation notes. Each container's device-ID set (pod-resources {@code List}) keys the {@link Answer} it was
 * given ({@link AnswerLog}). When a pod's containers were answered with another pod's allocation (identical twins
 * admitted in the other order), the pod's {@code mpshare.io/allocation} and ACK index are rewritten to those GPUs,
 * with the pod's own demand, and marked assigned. Twins swap, so each pod of a pair is rewritten once and the ledger
 * keeps the same total per GPU. Pods whose containers got answers of different GPUs cannot be described by one
 * annotation: logged, left alone. Pods that hold our devices but still read {@code assigned=false} (the async patch
 * was lost, or we restarted) are marked assigned. Runs {@code delay} after an Allocate (coalesced) and every
 * {@code period}; a failing List is logged and retried on the next run.
 */
public final class Reconciler {
    private static final Logger LOG = Logger.getLogger(Reconciler.class.getName());

    private final Supplier<List<Holding>> holdings;
    private final AllocationManager manager;
    private final PodWrites annotator;
    private final InstantSource clock;
    private final Duration answerTtl;
    private final AtomicBoolean pending = new AtomicBoolean();

    /** Outcome of one pass, for logs and tests. */
    public record Result(int corrected, int marked, int mixed) {}

    /** @param holdings pod-resources List for {@code aliyun.com/gpu-mem} */
    public Reconciler(Supplier<List<Holding>> holdings, AllocationManager manager, PodWrites annotator, InstantSource clock, Duration answerTtl) {
        this.holdings = holdings;
        this.manager = manager;
        this.annotator = annotator;
        this.clock = clock;
        this.answerTtl = answerTtl;
    }

    public Result reconcile() {
        List<Holding> held = holdings.get();
        Map<PodKey, List<Holding>> byPod = new LinkedHashMap<>();
        var heldKeys = new HashSet<String>();
        for (Holding h : held) {
            byPod.computeIfAbsent(h.pod(), k -> new java.util.ArrayList<>()).add(h);
            heldKeys.add(AnswerLog.key(h.deviceIds()));
        }
        int corrected = 0, marked = 0, mixed = 0;
        for (var e : byPod.entrySet()) {
            Optional<Allocation> mine = manager.allocationOf(e.getKey());
            if (mine.isEmpty()) continue;
            Allocation real = null;
            boolean consistent = true;
            for (Holding h : e.getValue()) {
                var ans = manager.answerLog().get(h.deviceIds());
                if (ans.isEmpty()) continue;
                Allocation got = ans.get().allocation();
                if (real == null) real = got;
                else if (!real.gpuIndices().equals(got.gpuIndices())) consistent = false;
            }
            if (!consistent) {
                mixed++;
                LOG.warning("pod " + e.getKey() + ": its containers were answered with different GPUs; annotations left as they are");
                continue;
            }
            Allocation a = mine.get();
            if (real != null && !real.gpuIndices().equals(a.gpuIndices())) {
                fix(a, real, e.getValue());
                corrected++;
            } else if (a.phase() != Phase.ASSIGNED && (real != null || manager.fullyAnswered(a.podUid()))) {
                annotator.markAssigned(a.pod());
                manager.corrected(a.withPhase(Phase.ASSIGNED));
                marked++;
            } else if (a.phase() != Phase.ASSIGNED && real == null && holdsEveryAppContainer(a, e.getValue())) {
                // answered by an earlier run of this process whose assigned patch was lost: never match it again
                LOG.info("pod " + a.pod() + " was admitted before this process started; marking it assigned");
                manager.admittedElsewhere(a);
                annotator.markAssigned(a.pod());
                marked++;
            }
        }
        manager.answerLog().prune(heldKeys, clock.instant().minus(answerTtl));
        return new Result(corrected, marked, mixed);
    }

    private static boolean holdsEveryAppContainer(Allocation a, List<Holding> held) {
        var names = new HashSet<String>();
        for (Holding h : held) names.add(h.container());
        for (var c : a.demand().containers()) if (!c.init() && !names.contains(c.name())) return false;
        return true;
    }

    private void fix(Allocation mine, Allocation real, List<Holding> held) {
        var fixed = new Allocation(mine.pod(), mine.podUid(), mine.node(), real.gpuIndices(), real.gpuUuids(), mine.demand(),
                mine.assumedAt(), Phase.ASSIGNED);
        if (!mine.demand().equals(real.demand()))
            LOG.warning("pod " + mine.pod() + " runs with the caps of pod " + real.pod() + " (same units, different shape)");
        LOG.info("pod " + mine.pod() + " really got GPU " + real.gpuIndices() + " (annotated " + mine.gpuIndices() + "): correcting");
        var ann = new LinkedHashMap<>(AllocationCodec.encode(fixed, manager.unit()));
        ann.remove(Names.ANN_ASSUME_TIME);
        ann.remove(Names.ACK_GPU_MEM_ASSUME_TIME);
        annotator.patch(mine.pod(), ann);
        manager.corrected(fixed);
        for (Holding h : held)
            manager.answerLog().get(h.deviceIds()).ifPresent(ans ->
                    manager.answerLog().replace(h.deviceIds(), new Answer(mine.pod(), mine.podUid(), ans.container(), fixed, ans.at())));
    }

    /** Runs a pass {@code delay} from now unless one is already pending. */
    public void soon(ScheduledExecutorService exec, Duration delay) {
        if (!pending.compareAndSet(false, true)) return;
        exec.schedule(() -> { pending.set(false); safe(); }, delay.toMillis(), TimeUnit.MILLISECONDS);
    }

    public void start(ScheduledExecutorService exec, Duration period) {
        exec.scheduleWithFixedDelay(this::safe, period.toMillis(), period.toMillis(), TimeUnit.MILLISECONDS);
    }

    private void safe() {
        try {
            Result r = reconcile();
            if (r.corrected() + r.marked() + r.mixed() > 0) LOG.info("reconciled from pod-resources: " + r);
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "reconcile from pod-resources failed, retrying later: " + e.getMessage(), e);
        }
    }
}
