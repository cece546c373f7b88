package io.mpshare.sim.openb;

import io.mpshare.core.ledger.AssumeResult;
import io.mpshare.core.ledger.Ledger;
import io.mpshare.core.ledger.NodeState;
import io.mpshare.core.model.ContainerShare;
import io.mpshare.core.model.Gpu;
import io.mpshare.core.model.GpuDemand;
import io.mpshare.core.model.NodeInventory;
import io.mpshare.core.model.PodKey;
import io.mpshare.core.policy.Evaluation;
import io.mpshare.core.policy.FragmentationPolicy;
import io.mpshare.core.policy.TaskMix;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.SplittableRandom;

/**
 * mpshare's own placement on the trace, through the real core: every node is an mpshare inventory in a
 * {@link Ledger}; a GPU task becomes the {@link GpuDemand} mpshare would charge on that node's GPU model
 * (a share of {@code gpu_milli} thousandths: {@code floor(gpu_milli * totalMib / 1000)} MiB and
 * {@code gpu_milli / 10} percent of the cores, no context reserve; whole GPUs: all of both). The replay's
 * host filters (CPU, memory, model) stand for kube-scheduler's; {@link FragmentationPolicy} then scores each
 * node that passes, with the node's free CPU, as the extender's prioritize would, and the pod is booked by
 * {@link Ledger#assume} with the same policy and inputs ({@link FragmentationPolicy#forHost}), so the GPUs
 * are the ones bind would pick. Nodes whose increases are equal within the policy's tolerance are ordered by
 * the policy itself, by a hash of the node name ({@link FragmentationPolicy.TieBreak#NAME_HASH}), as in the
 * extender; exact ties go to the first node in trace order ({@code PlacementEngine.bestNode} breaks them by
 * name, the same order here).
 *
 * <p>The task mix is the trace's GPU tasks, by (GPU count, share per GPU, CPU, memory), weighted by how
 * often each comes: what the extender would learn from the pods it has seen. Prioritize and bind get the
 * node's free CPU and memory, as the extender knows them from its informer cache.
 *
 * <p>CPU-only tasks are kube-scheduler's, not the extender's: the replay stands for a score plugin using
 * {@link FragmentationPolicy#hostScore}, the node where taking the CPU strands the least GPU share.
 */
final class MpshareDefault implements ReplayPolicy {
    private final Ledger ledger = new Ledger(InstantSource.fixed(Instant.EPOCH), Duration.ofDays(365));
    private final FragmentationPolicy policy;
    private final NodeState[] states;
    private final long[] gpuMib;
    private final int[] sizeIndex;
    private final long[] sizes;
    private final Map<List<Long>, Shape> shapes = new HashMap<>();
    private final Evaluation[][] memo;
    private GpuDemand pending;
    private Cluster cluster;
    private int seq;

    MpshareDefault(List<OpenbTrace.Node> nodes, GpuModels models, FragmentationPolicy policy) {
        this.policy = policy;
        states = new NodeState[nodes.size()];
        gpuMib = new long[nodes.size()];
        sizeIndex = new int[nodes.size()];
        memo = new Evaluation[nodes.size()][];
        List<Long> distinct = new ArrayList<>();
        for (int i = 0; i < nodes.size(); i++) {
            OpenbTrace.Node n = nodes.get(i);
            List<Gpu> gpus = new ArrayList<>();
            long mib = n.gpus() == 0 ? 0 : models.mib(n.model());
            for (int g = 0; g < n.gpus(); g++) gpus.add(new Gpu(g, "GPU-" + n.name() + "-" + g, n.model(), mib, true));
            ledger.upsertNode(new NodeInventory(n.name(), gpus));
            states[i] = ledger.node(n.name());
            gpuMib[i] = mib;
            if (!distinct.contains(mib)) distinct.add(mib);
            sizeIndex[i] = distinct.indexOf(mib);
        }
        sizes = distinct.stream().mapToLong(Long::longValue).toArray();
    }

    /** The default policy with the mix of the trace's GPU tasks: (GPU count, share per GPU), weighted by how often each comes. */
    static MpshareDefault of(List<OpenbTrace.Node> nodes, GpuModels models, List<OpenbTrace.Task> trace) {
        return new MpshareDefault(nodes, models, new FragmentationPolicy(mixOf(trace)));
    }

    static TaskMix mixOf(List<OpenbTrace.Task> trace) {
        Map<List<Long>, Integer> counts = new LinkedHashMap<>();
        for (OpenbTrace.Task t : trace)
            if (t.numGpu() > 0) counts.merge(List.of((long) t.numGpu(), (long) t.milliPerGpu(), t.cpuMilli(), t.memoryMib()), 1, Integer::sum);
        List<TaskMix.Entry> entries = new ArrayList<>();
        counts.forEach((k, n) -> entries.add(new TaskMix.Entry(k.get(0).intValue(), 0, k.get(1).intValue(), 0, k.get(2), k.get(3), n)));
        return new TaskMix(entries);
    }

    /** What mpshare charges for the task on each of its GPUs when they have {@code totalMib}. */
    static GpuDemand demand(OpenbTrace.Task t, long totalMib) {
        long mib = t.milliPerGpu() * totalMib / 1000;
        int core = t.milliPerGpu() / 10;
        return new GpuDemand(t.numGpu(), mib, core, 0, mib * t.numGpu(),
                List.of(new ContainerShare("main", false, mib, core)), OptionalLong.empty());
    }

    /** The task's charge on each GPU size of the cluster, and a small id for its shape. */
    private record Shape(int id, GpuDemand[] bySize, long cpu, long mem) {}

    private Shape shapeOf(OpenbTrace.Task t) {
        return shapes.computeIfAbsent(List.of((long) t.numGpu(), (long) t.milliPerGpu(), t.cpuMilli(), t.memoryMib()), k -> {
            GpuDemand[] a = new GpuDemand[sizes.length];
            for (int z = 0; z < sizes.length; z++) if (sizes[z] > 0) a[z] = demand(t, sizes[z]);
            return new Shape(shapes.size(), a, t.cpuMilli(), t.memoryMib());
        });
    }

    /**
     * The policy's evaluation of the task's shape on node {@code i}. NodeState is immutable and the policy a
     * pure function of it, so an evaluation is remembered until the node's state changes (the replay asks
     * the same few shapes of the same unchanged nodes thousands of times).
     */
    private Evaluation evaluation(int i, Shape shape) {
        Evaluation[] row = memo[i];
        if (row == null || row.length <= shape.id()) {
            row = row == null ? new Evaluation[Math.max(16, shape.id() + 1)] : Arrays.copyOf(row, Math.max(2 * row.length, shape.id() + 1));
            memo[i] = row;
        }
        Evaluation e = row[shape.id()];
        if (e == null) row[shape.id()] = e = policy.evaluate(states[i], shape.bySize()[sizeIndex[i]], cluster.cpuLeft[i], shape.cpu(),
                cluster.memLeft[i], shape.mem());
        return e;
    }

    @Override public Placement choose(Cluster c, OpenbTrace.Task t, SplittableRandom rnd) {
        cluster = c;
        if (t.numGpu() == 0) return cpuOnly(c, t);
        Shape shape = shapeOf(t);
        int best = -1;
        long bestScore = Long.MIN_VALUE;
        int[] positions = null;
        for (int i = 0; i < c.size(); i++) {
            // the trace's own accounting says which nodes have room; the core must agree on every one of them
            if (!c.fits(i, t)) continue;
            if (!(evaluation(i, shape) instanceof Evaluation.Fits f))
                throw new IllegalStateException("mpshare's charge for " + t.name() + " does not fit " + c.nodes.get(i).name()
                        + " although its share does: the MiB/core mapping lost precision");
            if (best < 0 || f.score() > bestScore) { best = i; bestScore = f.score(); positions = f.positions(); }
        }
        if (best < 0) return null;
        pending = shape.bySize()[sizeIndex[best]];
        return new Placement(best, positions);
    }

    /**
     * A CPU-only task is kube-scheduler's, not the extender's; the replay stands in for a score plugin using
     * the same fragmentation measure: the node where taking the CPU strands the least GPU share (first in
     * trace order on ties).
     */
    private Placement cpuOnly(Cluster c, OpenbTrace.Task t) {
        int best = -1;
        long bestScore = Long.MIN_VALUE;
        for (int i = 0; i < c.size(); i++) {
            if (!c.hostFits(i, t)) continue;
            long s = policy.hostScore(states[i], c.cpuLeft[i], t.cpuMilli(), c.memLeft[i], t.memoryMib());
            if (best < 0 || s > bestScore) { best = i; bestScore = s; }
        }
        return best < 0 ? null : new Placement(best, new int[0]);
    }

    @Override public void placed(Cluster c, OpenbTrace.Task t, Placement p) {
        if (memo[p.node()] != null) Arrays.fill(memo[p.node()], null); // its CPU changed, and maybe its GPUs
        if (t.numGpu() == 0) return;
        String node = c.nodes.get(p.node()).name();
        // bind: the ledger books what the policy picks with the same inputs prioritize had (the node's CPU
        // as it was before this task)
        long cpuBefore = c.cpuLeft[p.node()] + t.cpuMilli(), memBefore = c.memLeft[p.node()] + t.memoryMib();
        AssumeResult r = ledger.assume(PodKey.of("openb", t.name() + "-" + seq++), "", node, pending, policy.forHost(cpuBefore, t.cpuMilli(), memBefore, t.memoryMib()));
        if (!(r instanceof AssumeResult.Assumed a))
            throw new IllegalStateException("the ledger refused " + t.name() + " on " + node + ": " + r);
        for (int k = 0; k < p.gpus().length; k++)
            if (a.allocation().gpuIndices().get(k) != p.gpus()[k])
                throw new IllegalStateException("bind chose GPUs " + a.allocation().gpuIndices() + " but prioritize " + Arrays.toString(p.gpus()));
        states[p.node()] = ledger.node(node);
    }
}
