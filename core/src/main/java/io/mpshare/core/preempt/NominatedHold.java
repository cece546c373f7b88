package io.mpshare.core.preempt;

import io.mpshare.core.ledger.Allocation;
import io.mpshare.core.ledger.Ledger;
import io.mpshare.core.ledger.NodeState;
import io.mpshare.core.ledger.Phase;
import io.mpshare.core.model.GpuDemand;
import io.mpshare.core.model.PodKey;
import io.mpshare.core.policy.Evaluation;
import io.mpshare.core.policy.PlacementPolicy;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;

/**
 * The room of pods that preemption nominated to a node, held against pods of lower priority.
 *
 * <p>kube-scheduler counts a nominated pod against its node for its own plugins, but an extender sees
 * only its ledger: without this, a lower-priority pod's filter takes the room the victims freed and the
 * preemptor stays Pending. Here each nominated pod is booked on a scratch copy of the node, on the GPUs
 * the preempt verb chose for it when known and still on the node, else where {@code policy} would put it,
 * else (its victims are still terminating) on the GPUs with the most free memory, over-booking them if
 * need be; the pod being filtered must then fit on what is left.
 *
 * <p>Pure: a snapshot in, an {@link Evaluation} out.
 */
public final class NominatedHold {
    private static final Instant EPOCH = Instant.EPOCH;

    private NominatedHold() {}

    /**
     * A pod nominated to the node.
     *
     * @param gpuIndices the GPUs the preempt verb chose for it, empty when not known
     */
    public record Nominee(PodKey pod, int priority, GpuDemand demand, List<Integer> gpuIndices) {
        public Nominee {
            Objects.requireNonNull(pod, "pod");
            Objects.requireNonNull(demand, "demand");
            gpuIndices = List.copyOf(gpuIndices);
        }
    }

    /** {@code demand} on {@code node} with every nominee's room taken first. */
    public static Evaluation evaluate(NodeState node, List<Nominee> nominees, GpuDemand demand, PlacementPolicy policy) {
        if (nominees.isEmpty()) return policy.evaluate(node, demand);
        NodeState held = hold(node, nominees, policy);
        Evaluation e = policy.evaluate(held, demand);
        if (e instanceof Evaluation.Fits) return e;
        Nominee first = nominees.getFirst();
        return new Evaluation.Unfit("room held for " + (nominees.size() == 1 ? "a pod" : nominees.size() + " pods")
                + " of higher priority that preemption nominated to this node (first " + first.pod() + ", priority "
                + first.priority() + "); the pod fits once they are placed");
    }

    /** A scratch snapshot of {@code node} with every nominee booked, highest priority first. */
    static NodeState hold(NodeState node, List<Nominee> nominees, PlacementPolicy policy) {
        Ledger scratch = new Ledger(InstantSource.fixed(EPOCH), Duration.ZERO);
        scratch.upsertNode(node.inventory());
        for (Allocation a : node.pods().values()) scratch.restore(a);
        List<Nominee> order = new ArrayList<>(nominees);
        order.sort(Comparator.comparingInt(Nominee::priority).reversed().thenComparing(Nominee::pod));
        for (Nominee n : order) {
            if (node.pods().containsKey(n.pod())) continue; // already booked there: counted as it is
            NodeState s = scratch.node(node.name());
            List<Integer> gpus = placeOn(s, n, policy);
            if (gpus.size() != n.demand().gpuCount()) continue; // the node has too few GPUs: nothing to hold
            List<String> uuids = new ArrayList<>(gpus.size());
            for (int idx : gpus) uuids.add(s.gpu(s.position(idx)).uuid());
            scratch.restore(new Allocation(n.pod(), "", node.name(), gpus, uuids, n.demand(), EPOCH, Phase.ASSUMED));
        }
        return scratch.node(node.name());
    }

    private static List<Integer> placeOn(NodeState s, Nominee n, PlacementPolicy policy) {
        int count = n.demand().gpuCount();
        if (n.gpuIndices().size() == count && n.gpuIndices().stream().allMatch(i -> s.position(i) >= 0)) return sorted(n.gpuIndices());
        if (policy.evaluate(s, n.demand()) instanceof Evaluation.Fits f) {
            List<Integer> out = new ArrayList<>();
            for (int pos : f.positions()) out.add(s.gpuIndex(pos));
            return sorted(out);
        }
        List<Integer> positions = new ArrayList<>();
        for (int pos = 0; pos < s.gpuCount(); pos++) if (s.usable(pos)) positions.add(pos);
        if (positions.size() < count) { positions.clear(); for (int pos = 0; pos < s.gpuCount(); pos++) positions.add(pos); }
        positions.sort(Comparator.comparingLong((Integer p) -> -s.freeMib(p)).thenComparingInt(p -> p));
        List<Integer> out = new ArrayList<>();
        for (int pos : positions.subList(0, Math.min(count, positions.size()))) out.add(s.gpuIndex(pos));
        return sorted(out);
    }

    private static List<Integer> sorted(List<Integer> l) {
        List<Integer> out = new ArrayList<>(l);
        out.sort(null);
        return out;
    }
}
