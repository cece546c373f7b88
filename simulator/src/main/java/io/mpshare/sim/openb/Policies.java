package io.mpshare.sim.openb;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/** The policies a replay can compare, by CLI name: the paper's six in its order, then mpshare's default; each run gets fresh instances. */
public enum Policies {
    RANDOM("random", "Random"),
    DOTPROD("dotprod", "DotProd"),
    GPUCLUSTERING("gpuclustering", "GpuClustering"),
    GPUPACKING("gpupacking", "GpuPacking"),
    BESTFIT("bestfit", "BestFit"),
    FGD("fgd", "FGD (paper)"),
    DEFAULT("default", "mpshare default");

    public final String cliName;
    public final String label;

    Policies(String cliName, String label) { this.cliName = cliName; this.label = label; }

    ReplayPolicy create(List<OpenbTrace.Node> nodes, GpuModels models, List<OpenbTrace.Task> trace) {
        return switch (this) {
            case RANDOM -> new PaperPolicies.Random();
            case DOTPROD -> new PaperPolicies.DotProd();
            case GPUCLUSTERING -> new PaperPolicies.GpuClustering();
            case BESTFIT -> new PaperPolicies.BestFit();
            case GPUPACKING -> new PaperPolicies.GpuPacking();
            case FGD -> PaperFgd.of(trace);
            case DEFAULT -> MpshareDefault.of(nodes, models, trace);
        };
    }

    public static Policies byName(String name) {
        String n = name.strip().toLowerCase(Locale.ROOT);
        for (Policies p : values()) if (p.cliName.equals(n)) return p;
        throw new IllegalArgumentException("unknown policy '" + name + "'; choose from "
                + Arrays.stream(values()).map(p -> p.cliName).toList());
    }

    /** "random,bestfit" or "all". */
    public static List<Policies> parse(String list) {
        if (list.strip().equalsIgnoreCase("all")) return List.of(values());
        return Arrays.stream(list.split(",")).filter(s -> !s.isBlank()).map(Policies::byName).distinct().toList();
    }
}
