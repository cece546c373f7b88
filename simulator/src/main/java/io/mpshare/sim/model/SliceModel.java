package io.mpshare.sim.model;

import io.mpshare.core.ledger.NodeState;
import io.mpshare.core.model.GpuDemand;

/** Baseline: NVIDIA's equal fixed slices ({@link SlicePolicy}), first node that fits. */
public record SliceModel(SlicePolicy policy, long reserveMib) implements SharingModel {
    public SliceModel(int slicesPerGpu, long reserveMib) { this(new SlicePolicy(slicesPerGpu), reserveMib); }

    @Override public String id() { return "slices"; }

    @Override public String label() { return "fixed slices (" + policy.slicesPerGpu() + "/GPU)"; }

    @Override public String description() {
        return "NVIDIA device-plugin replicas: each GPU cut into " + policy.slicesPerGpu()
                + " equal slices; a pod takes whole slices (memory and cores), first node that fits.";
    }

    @Override public boolean shares() { return true; }

    @Override public Search search() { return Search.FIRST_FIT; }

    /** The most memory a node could hand out in free slices on one GPU. */
    @Override public long nodeKey(NodeState s) {
        int[] used = policy.usedSlices(s);
        long best = 0;
        for (int i = 0; i < s.gpuCount(); i++)
            if (s.usable(i)) best = Math.max(best, Math.max(0, policy.slicesPerGpu() - used[i]) * policy.sliceMib(s.totalMib(i)));
        return best;
    }

    /**
     * The pod needs free slices worth its memory, and at least as many slices as its core share asks; on a
     * GPU of the smallest size that is {@code coreSlices * slice}, and larger GPUs have larger slices. On a
     * cluster of one GPU size the key test is then exact for one-GPU pods.
     */
    @Override public long threshold(GpuDemand d, long smallestGpuMib) {
        long coreSlices = ((long) d.chargeCore() * policy.slicesPerGpu() + 99) / 100;
        return Math.max(d.chargeMib(), coreSlices * policy.sliceMib(smallestGpuMib));
    }

    @Override public long usableFreeMib(NodeState s, int pos, long minChargeMib, int minCore) {
        int free = policy.freeSlices(s, pos);
        if (free == 0 || policy.slicesFor(minChargeMib, minCore, s.totalMib(pos)) > free) return 0;
        return Math.min(s.freeMib(pos), free * policy.sliceMib(s.totalMib(pos)));
    }
}
