package io.mpshare.sim.report;

import io.mpshare.core.Names;
import io.mpshare.sim.RunResult;
import io.mpshare.sim.Simulation;
import io.mpshare.sim.model.Models;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** The numbers both reports print: the headline, the extender's default, and one row per model. docs/simulate.md explains each. */
public final class Summary {
    public static final List<String> COLUMNS = List.of("policy", "GPUs needed", "saves", "peak in use", "placed", "rejected", "waited",
            "pending mean", "pending p95", "mem util", "stranded");

    private Summary() {}

    /**
     * "sharing with mpshare fragmentation (default) needs N GPUs where whole-GPU needs M: saves X%", for the
     * extender's default model (else binpack, else the first that shares), or the nearest statement the models allow.
     */
    public static String headline(Simulation.Result r) {
        Simulation.ModelResult whole = r.model("whole");
        Simulation.ModelResult share = headlineModel(r);
        if (share != null && whole != null)
            return String.format(Locale.ROOT, "sharing with %s needs %s where whole-GPU needs %,d: saves %s",
                    share.model().label(), gpus(share.gpusNeeded()), whole.gpusNeeded(), savesPercent(share, whole));
        var first = r.models().getFirst();
        return String.format(Locale.ROOT, "%s needs %s to run this workload without pending (add --policies whole to compare with no sharing)",
                first.model().label(), gpus(first.gpusNeeded()));
    }

    private static Simulation.ModelResult headlineModel(Simulation.Result r) {
        Simulation.ModelResult m = r.model(Models.DEFAULT_ID);
        if (m == null) m = r.model(Names.POLICY_BINPACK);
        if (m == null) m = r.models().stream().filter(x -> x.model().shares()).findFirst().orElse(null);
        return m;
    }

    /**
     * Which policy the scheduler extender runs when {@code --policy} is not given ({@link Names#DEFAULT_PLACEMENT_POLICY}),
     * and how binpack, the other packing policy it offers, compares with it on this workload.
     */
    public static String extenderDefaultLine(Simulation.Result r) {
        String id = Models.DEFAULT_ID;
        Simulation.ModelResult def = r.model(id);
        String runs = "the scheduler extender runs " + id + " by default (mpshare scheduler-extender --policy)";
        if (def == null) return runs + "; it is not in this run: add " + id + " to --policies";
        Simulation.ModelResult other = r.model(Names.POLICY_BINPACK);
        if (other == null || other == def) return runs;
        int diff = other.gpusNeeded() - def.gpusNeeded();
        String than = diff == 0 ? "as many GPUs"
                : String.format(Locale.ROOT, "%s (%,d)", gpus(Math.abs(diff)).replace(" GPU", diff < 0 ? " fewer GPU" : " more GPU"), other.gpusNeeded());
        return runs + "; on this workload " + other.model().id() + " needs " + than;
    }

    /** "1 GPU", "1,024 GPUs". */
    static String gpus(int n) { return String.format(Locale.ROOT, n == 1 ? "%,d GPU" : "%,d GPUs", n); }

    /** "77%": 1 - shared / whole GPUs needed, rounded; "-" when whole-GPU needs none. */
    static String savesPercent(Simulation.ModelResult share, Simulation.ModelResult whole) {
        int m = whole.gpusNeeded();
        return m == 0 ? "-" : String.format(Locale.ROOT, "%.0f%%", (1 - (double) share.gpusNeeded() / m) * 100);
    }

    /**
     * One line per model about the fixed cluster: does anything wait there? With several tenants, also how many MPS
     * daemons (fault domains) serve each GPU in use: each one more time-slices the GPU's servers.
     */
    public static List<String> clusterLines(Simulation.Result r) {
        List<String> out = new ArrayList<>();
        int gpus = r.scenario().cluster().gpus();
        for (var m : r.models()) {
            RunResult f = m.fixed();
            String wait = f.waited() == 0 ? "no pod waits"
                    : String.format(Locale.ROOT, "%,d pods wait (p95 %s, longest %s)", f.waited(), Fmt.duration(f.waitQuantileMs(0.95)), Fmt.duration(f.maxWaitMs()));
            String daemons = r.scenario().tenants() == 1 ? "" : String.format(Locale.ROOT, "; MPS daemons per GPU in use %.2f (most %d)",
                    f.meanDaemonsPerGpu(), f.peakDaemonsPerGpu());
            out.add(String.format(Locale.ROOT, "%s on the %,d-GPU cluster: peak %,d GPUs in use, %s%s", m.model().label(), gpus, f.peakGpusInUse(), wait, daemons));
        }
        return out;
    }

    /** The row of {@code m}; "saves" is against {@code whole} (null: not in the run, "-"). */
    public static List<String> row(Simulation.ModelResult m, Simulation.ModelResult whole) {
        RunResult f = m.fixed();
        String saves = whole == null || whole == m ? "-" : savesPercent(m, whole);
        return List.of(m.model().label(), Fmt.count(m.gpusNeeded()), saves, Fmt.count(f.peakGpusInUse()), Fmt.count(f.placed()),
                Fmt.count(f.rejected()), Fmt.count(f.waited()), Fmt.duration(f.meanWaitMs()), Fmt.duration(f.waitQuantileMs(0.95)),
                Fmt.percent(f.memUtilisation()), Fmt.percent(f.strandedShare()));
    }

    public static List<List<String>> rows(Simulation.Result r) {
        Simulation.ModelResult whole = r.model("whole");
        return r.models().stream().map(m -> row(m, whole)).toList();
    }
}
