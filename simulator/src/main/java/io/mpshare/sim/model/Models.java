package io.mpshare.sim.model;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** The models the simulator knows, by command-line id. */
public final class Models {
    /** Ids in report order. */
    public static final List<String> IDS = List.of("binpack", "spread", "slices", "whole");
    public static final int DEFAULT_SLICES = 8;

    private Models() {}

    public static SharingModel of(String id, long reserveMib, int slicesPerGpu) {
        return switch (id.strip().toLowerCase(Locale.ROOT)) {
            case "binpack" -> MpshareModel.binpack(reserveMib);
            case "spread" -> MpshareModel.spread(reserveMib);
            case "slices" -> new SliceModel(slicesPerGpu, reserveMib);
            case "whole" -> new WholeGpuModel();
            default -> throw new IllegalArgumentException("unknown policy '" + id + "': use " + String.join(", ", IDS));
        };
    }

    /** The models named in {@code ids}, in report order, each once. */
    public static List<SharingModel> of(List<String> ids, long reserveMib, int slicesPerGpu) {
        List<String> wanted = ids.stream().map(s -> s.strip().toLowerCase(Locale.ROOT)).toList();
        for (String w : wanted) if (!IDS.contains(w)) of(w, reserveMib, slicesPerGpu); // throws with the message
        List<SharingModel> out = new ArrayList<>();
        for (String id : IDS) if (wanted.contains(id)) out.add(of(id, reserveMib, slicesPerGpu));
        return out;
    }
}
