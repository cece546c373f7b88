package io.mpshare.sim.model;

import io.mpshare.core.Names;
import io.mpshare.core.ledger.NodeState;
import io.mpshare.core.policy.BinpackPolicy;
import io.mpshare.core.policy.FragmentationPolicy;
import io.mpshare.core.policy.TaskMix;
import io.mpshare.core.policy.PlacementPolicy;
import io.mpshare.core.policy.SpreadPolicy;

/** mpshare itself: a core policy, exactly as the extender runs it, charging the context reserve. */
public record MpshareModel(String id, String label, String description, PlacementPolicy policy, long reserveMib, Search search)
        implements SharingModel {

    public static MpshareModel binpack(long reserveMib) {
        return new MpshareModel(Names.POLICY_BINPACK, label(Names.POLICY_BINPACK),
                "MPS sharing; each pod goes to the GPU whose free memory fits it most tightly (best fit), on the node that scores highest.",
                new BinpackPolicy(), reserveMib, Search.BEST_FIT);
    }

    public static MpshareModel spread(long reserveMib) {
        return new MpshareModel(Names.POLICY_SPREAD, label(Names.POLICY_SPREAD),
                "MPS sharing; each pod goes to the GPU with the most free memory (worst fit), on the node that scores highest.",
                new SpreadPolicy(), reserveMib, Search.WORST_FIT);
    }

    /**
     * The core's {@link FragmentationPolicy} with a task mix of the demands the workload asks (as the
     * extender learns it from recent pods). Every node is evaluated for every pod: fine for hundreds of
     * nodes, slow at thousands.
     */
    public static MpshareModel fragmentation(long reserveMib, TaskMix mix) {
        return new MpshareModel(Names.POLICY_FRAGMENTATION, label(Names.POLICY_FRAGMENTATION),
                "MPS sharing; each pod goes where it least increases the free GPU share the expected mix of pods could no longer use"
                        + " (fragmentation gradient descent, ATC'23). Task mix: the workload's own demands (" + mix.entries().size()
                        + " shapes), what the extender learns from the recent pods it has seen; GPU only, as the simulation has no host CPU.",
                new FragmentationPolicy(mix), reserveMib, Search.EXHAUSTIVE);
    }

    /** "mpshare binpack"; the extender's default policy ({@link Names#DEFAULT_PLACEMENT_POLICY}) is marked "(default)". */
    static String label(String policy) {
        return "mpshare " + policy + (policy.equals(Names.DEFAULT_PLACEMENT_POLICY) ? " (default)" : "");
    }

    public static MpshareModel binpack() { return binpack(Names.DEFAULT_CONTEXT_RESERVE_MIB); }

    @Override public boolean shares() { return true; }

    @Override public long usableFreeMib(NodeState s, int pos, long minChargeMib, int minCore) {
        long free = s.freeMib(pos);
        return free >= minChargeMib && s.freeCore(pos) >= minCore ? free : 0;
    }
}
