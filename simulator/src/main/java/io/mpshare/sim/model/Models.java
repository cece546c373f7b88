package io.mpshare.sim.model;

import io.mpshare.core.Names;
import io.mpshare.core.model.ContainerRequest;
import io.mpshare.core.model.DemandResolver;
import io.mpshare.core.model.GpuDemand;
import io.mpshare.core.model.PodInfo;
import io.mpshare.core.model.PodKey;
import io.mpshare.core.policy.TaskMix;
import io.mpshare.sim.workload.SimPod;
import io.mpshare.sim.workload.Workload;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.OptionalLong;

/** The models the simulator knows, by command-line id. */
public final class Models {
    /**
     * The id of the model the scheduler extender runs when {@code --policy} is not given: the mpshare model of
     * the same name ({@link Names#DEFAULT_PLACEMENT_POLICY}); the reports name it.
     */
    public static final String DEFAULT_ID = Names.DEFAULT_PLACEMENT_POLICY;
    /** Every id, in report order: the extender's default first, then binpack, spread and the baselines. */
    public static final List<String> ALL = List.of(Names.POLICY_FRAGMENTATION, Names.POLICY_BINPACK, Names.POLICY_SPREAD, "slices", "whole");
    /** The models a run compares by default, in report order: all of them. */
    public static final List<String> IDS = ALL;
    public static final int DEFAULT_SLICES = 8;

    private Models() {}

    /**
     * The model {@code id}; {@code workload} is needed only by {@code fragmentation}: its task mix is the
     * workload's own demands ({@link #mix}), else it may be null.
     */
    public static SharingModel of(String id, long reserveMib, int slicesPerGpu, Workload workload) {
        return switch (id.strip().toLowerCase(Locale.ROOT)) {
            case Names.POLICY_BINPACK -> MpshareModel.binpack(reserveMib);
            case Names.POLICY_SPREAD -> MpshareModel.spread(reserveMib);
            case Names.POLICY_FRAGMENTATION -> {
                if (workload == null) throw new IllegalArgumentException("the fragmentation model needs the workload for its task mix");
                yield MpshareModel.fragmentation(reserveMib, mix(workload, reserveMib));
            }
            case "slices" -> new SliceModel(slicesPerGpu, reserveMib);
            case "whole" -> new WholeGpuModel();
            default -> throw new IllegalArgumentException("unknown policy '" + id + "': use " + String.join(", ", ALL));
        };
    }

    public static SharingModel of(String id, long reserveMib, int slicesPerGpu) { return of(id, reserveMib, slicesPerGpu, null); }

    /** The models named in {@code ids}, in report order, each once. */
    public static List<SharingModel> of(List<String> ids, long reserveMib, int slicesPerGpu, Workload workload) {
        List<String> wanted = ids.stream().map(s -> s.strip().toLowerCase(Locale.ROOT)).toList();
        for (String w : wanted) if (!ALL.contains(w)) of(w, reserveMib, slicesPerGpu, workload); // throws with the message
        List<SharingModel> out = new ArrayList<>();
        for (String id : ALL) if (wanted.contains(id)) out.add(of(id, reserveMib, slicesPerGpu, workload));
        return out;
    }

    public static List<SharingModel> of(List<String> ids, long reserveMib, int slicesPerGpu) { return of(ids, reserveMib, slicesPerGpu, null); }

    /**
     * The workload's valid demands, as the extender's resolver charges them, weighted by how often each comes:
     * the mix the extender learns from the recent pods it has seen, once those are pods of this workload. The whole workload is used, not a window, so every run of a model sees one mix.
     */
    public static TaskMix mix(Workload workload, long reserveMib) {
        var resolver = new DemandResolver(reserveMib);
        List<GpuDemand> seen = new ArrayList<>();
        for (SimPod p : workload.pods()) {
            var info = new PodInfo(PodKey.of("sim", "mix"), "", List.of(ContainerRequest.app("main", p.memMib(), p.corePercent())),
                    p.gpuCount(), OptionalLong.empty());
            if (resolver.resolve(info) instanceof DemandResolver.Resolution.Resolved r) seen.add(r.demand());
        }
        if (seen.isEmpty()) throw new IllegalArgumentException("the workload has no valid pod to build a task mix from");
        return TaskMix.ofDemands(seen);
    }
}
