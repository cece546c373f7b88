package io.mpshare.sim.openb;

import java.util.Map;
import java.util.TreeMap;

/**
 * GPU memory per model name, for building mpshare inventories from a trace. The trace gives shares of a
 * GPU, so sizes change only rounding, never a result; they must still be real numbers. Known models carry
 * the sizes the paper's simulator uses; anonymised ones (the openb node list has G2 and G3) need
 * {@code --gpu-mib MODEL=MIB}, or {@code --gpu-mib '*=MIB'} for every model not otherwise known.
 */
public final class GpuModels {
    private static final Map<String, Long> KNOWN = Map.of(
            "P4", 7611L, "T4", 15109L, "V100M16", 16160L, "P100", 16280L, "A10", 22731L,
            "V100M32", 32510L, "A100", 81251L, "H200", 143771L);

    private final Map<String, Long> sizes = new TreeMap<>(KNOWN);
    private Long fallback;

    /** Adds {@code MODEL=MIB}; {@code *=MIB} sizes every unknown model. */
    public GpuModels with(String spec) {
        int eq = spec.indexOf('=');
        if (eq <= 0) throw new IllegalArgumentException("--gpu-mib wants MODEL=MIB (or '*=MIB'), got '" + spec + "'");
        String model = spec.substring(0, eq).strip();
        long mib;
        try { mib = Long.parseLong(spec.substring(eq + 1).strip()); }
        catch (NumberFormatException e) { throw new IllegalArgumentException("--gpu-mib " + spec + ": size is not a whole number of MiB"); }
        if (mib < 1000) throw new IllegalArgumentException("--gpu-mib " + spec + ": a GPU has at least 1000 MiB");
        if (model.equals("*")) fallback = mib; else sizes.put(model, mib);
        return this;
    }

    public long mib(String model) {
        Long m = sizes.get(model);
        if (m == null) m = fallback;
        if (m == null) throw new IllegalArgumentException("GPU model '" + model + "' has no known memory size; give it with --gpu-mib "
                + model + "=MIB (or --gpu-mib '*=MIB' for all unknown models). Known: " + sizes.keySet());
        return m;
    }
}
