package io.mpshare.sim.model;

import io.mpshare.core.ledger.NodeState;
import io.mpshare.core.model.GpuDemand;

/** Baseline: one pod per GPU, no sharing and so no context reserve ({@link WholeGpuPolicy}), first node that fits. */
public record WholeGpuModel(WholeGpuPolicy policy) implements SharingModel {
    public WholeGpuModel() { this(new WholeGpuPolicy()); }

    @Override public String id() { return "whole"; }

    @Override public String label() { return "whole GPU per pod"; }

    @Override public String description() {
        return "No sharing (nvidia.com/gpu): each pod gets gpu-count GPUs of its own, whatever it asks; first node that fits.";
    }

    @Override public boolean shares() { return false; }

    @Override public long reserveMib() { return 0; }

    @Override public Search search() { return Search.FIRST_FIT; }

    @Override public long nodeKey(NodeState s) { return WholeGpuPolicy.idleGpus(s); }

    @Override public long threshold(GpuDemand d, long smallestGpuMib) { return d.gpuCount(); }

    @Override public long usableFreeMib(NodeState s, int pos, long minChargeMib, int minCore) { return 0; }
}
