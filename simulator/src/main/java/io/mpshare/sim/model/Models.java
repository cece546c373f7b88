package io.mpshare.sim.model;

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
    /** The models a run compares by default, in report order. */
    public static final List<String> IDS = List.of("binpack", "spread", "slices", "whole");
    /** Every id, in report order; {@code fragmentation} is opt-in (it evaluates every node for every pod). */
    public static final List<String> ALL = List.of("binpack", "spread", "fragmentation", "slices", "whole");
    public static final int DEFAULT_SLICES = 8;

    private Models() {}

    /** The model {@code id}; {@code workload} is needed only by {@code fragmentation} (its task mix), else may be null. */
    public static SharingModel of(String id, long reserveMib, int slicesPerGpu, Workload workload) {
        return switch (id.strip().toLowerCase(Locale.ROOT)) {
            case "binpack" -> MpshareModel.binpack(reserveMib);
            case "spread" -> MpshareModel.spread(reserveMib);
            case "fragmentation" -> {
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

    /** The workload's valid demands, as the extender's resolver charges them, weighted by how often each comes. */
    static TaskMix mix(Workload workload, long reserveMib) {
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
