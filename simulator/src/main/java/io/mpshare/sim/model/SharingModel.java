package io.mpshare.sim.model;

import io.mpshare.core.ledger.NodeState;
import io.mpshare.core.model.GpuDemand;
import io.mpshare.core.policy.PlacementPolicy;

/**
 * One way of handing out GPUs that the simulator compares: a core {@link PlacementPolicy} (which GPUs of
 * a node a pod gets, and the node's score), the context reserve it charges, and how the simulator finds
 * the node to place on.
 *
 * <p>mpshare's own models use the core's policies unchanged; the baselines (fixed slices, whole GPUs)
 * are policies of this package that run on the same {@code Ledger}.
 */
public interface SharingModel {
    /** How the simulator picks the node among those that fit. */
    enum Search {
        /** The node with the highest core score, as {@code PlacementEngine.bestNode}; pruned for best-fit scores. */
        BEST_FIT,
        /** The node with the highest core score, as {@code PlacementEngine.bestNode}; pruned for worst-fit scores. */
        WORST_FIT,
        /** The node with the highest core score, every node evaluated (any policy; slow on big clusters). */
        EXHAUSTIVE,
        /** The first node in name order that fits: kube-scheduler with a device plugin that knows nothing of sharing. */
        FIRST_FIT
    }

    /** Short id used on the command line: fragmentation, binpack, spread, slices, whole. */
    String id();

    /** Name in the report, e.g. "mpshare binpack". */
    String label();

    /** One sentence for the report: what the model does. */
    String description();

    /** True when pods share GPUs (the headline compares these with whole-GPU). */
    boolean shares();

    /** True for the model of the policy the scheduler extender runs when {@code --policy} is not given ({@link Models#DEFAULT_ID}). */
    default boolean extenderDefault() { return id().equals(Models.DEFAULT_ID); }

    PlacementPolicy policy();

    /** CUDA context reserve charged per container per GPU, in MiB. */
    long reserveMib();

    Search search();

    /**
     * FIRST_FIT only: a key per node such that {@code nodeKey(s) < threshold(d, gpuMib)} means the node cannot
     * take {@code d}, where {@code gpuMib} is the smallest GPU of the cluster.
     */
    default long nodeKey(NodeState s) { return s.maxFreeMib(); }

    /** FIRST_FIT only: see {@link #nodeKey}. */
    default long threshold(GpuDemand d, long smallestGpuMib) { return d.chargeMib(); }

    /**
     * Free memory of the GPU at {@code pos} that this model could still give to a pod as small as the
     * smallest of the workload ({@code minChargeMib} and {@code minCore} per GPU). The rest of the GPU's free
     * memory is <em>stranded</em> while the GPU is in use.
     */
    long usableFreeMib(NodeState s, int pos, long minChargeMib, int minCore);
}
