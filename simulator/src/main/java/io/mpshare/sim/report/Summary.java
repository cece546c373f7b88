package io.mpshare.sim.report;

import io.mpshare.sim.RunResult;
import io.mpshare.sim.Simulation;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** The numbers both reports print: the headline and one row per model. docs/simulate.md explains each. */
public final class Summary {
    public static final List<String> COLUMNS = List.of("policy", "GPUs needed", "peak in use", "placed", "rejected", "waited",
            "pending mean", "pending p95", "mem util", "stranded");

    private Summary() {}

    /** "sharing with mpshare binpack needs N GPUs where whole-GPU needs M: saves X%", or the nearest statement the models allow. */
    public static String headline(Simulation.Result r) {
        Simulation.ModelResult whole = r.model("whole");
        Simulation.ModelResult share = r.model("binpack");
        if (share == null) share = r.models().stream().filter(m -> m.model().shares()).findFirst().orElse(null);
        if (share != null && whole != null) {
            int n = share.gpusNeeded(), m = whole.gpusNeeded();
            double saves = m == 0 ? 0 : 1 - (double) n / m;
            return String.format(Locale.ROOT, "sharing with %s needs %,d GPUs where whole-GPU needs %,d: saves %.0f%%",
                    share.model().label(), n, m, saves * 100);
        }
        var first = r.models().getFirst();
        return String.format(Locale.ROOT, "%s needs %,d GPUs to run this workload without pending (add --policies whole to compare with no sharing)",
                first.model().label(), first.gpusNeeded());
    }

    /** One line per model about the fixed cluster: does anything wait there? */
    public static List<String> clusterLines(Simulation.Result r) {
        List<String> out = new ArrayList<>();
        int gpus = r.scenario().cluster().gpus();
        for (var m : r.models()) {
            RunResult f = m.fixed();
            String wait = f.waited() == 0 ? "no pod waits"
                    : String.format(Locale.ROOT, "%,d pods wait (p95 %s, longest %s)", f.waited(), Fmt.duration(f.waitQuantileMs(0.95)), Fmt.duration(f.maxWaitMs()));
            out.add(String.format(Locale.ROOT, "%s on the %,d-GPU cluster: peak %,d GPUs in use, %s", m.model().label(), gpus, f.peakGpusInUse(), wait));
        }
        return out;
    }

    public static List<String> row(Simulation.ModelResult m) {
        RunResult f = m.fixed();
        return List.of(m.model().label(), Fmt.count(m.gpusNeeded()), Fmt.count(f.peakGpusInUse()), Fmt.count(f.placed()), Fmt.count(f.rejected()),
                Fmt.count(f.waited()), Fmt.duration(f.meanWaitMs()), Fmt.duration(f.waitQuantileMs(0.95)), Fmt.percent(f.memUtilisation()),
                Fmt.percent(f.strandedShare()));
    }

    public static List<List<String>> rows(Simulation.Result r) {
        return r.models().stream().map(Summary::row).toList();
    }
}
