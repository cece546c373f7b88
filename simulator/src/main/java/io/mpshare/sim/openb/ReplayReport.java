package io.mpshare.sim.openb;

import io.mpshare.sim.report.svg.LineChart;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Text table and self-contained HTML report (inline SVG through the simulator's {@link LineChart}, no
 * scripts) of an openb comparison, next to the figures the paper published (shared/traces/README.md).
 */
public final class ReplayReport {
    private ReplayReport() {}

    /**
     * Published GPU allocation ratios (%), Weng et al. ATC'23, by trace then policy; gpuspec*: the mean over
     * seeds 42-51 of the paper's simulator's experiments/analysis/expected_results/analysis_allo_discrete.csv.
     */
    static final Map<String, Map<Policies, Double>> PUBLISHED = Map.of(
            "default", Map.of(Policies.RANDOM, 87.47, Policies.DOTPROD, 90.85, Policies.GPUCLUSTERING, 91.88,
                    Policies.GPUPACKING, 92.00, Policies.BESTFIT, 93.08, Policies.FGD, 95.39),
            "gpushare100", Map.of(Policies.RANDOM, 79.44, Policies.DOTPROD, 82.42, Policies.GPUCLUSTERING, 82.65,
                    Policies.GPUPACKING, 82.57, Policies.BESTFIT, 85.01, Policies.FGD, 86.90),
            "multigpu50", Map.of(Policies.RANDOM, 90.27, Policies.DOTPROD, 94.85, Policies.GPUCLUSTERING, 95.81,
                    Policies.GPUPACKING, 96.18, Policies.BESTFIT, 95.74, Policies.FGD, 97.18),
            "gpuspec10", Map.of(Policies.FGD, 94.95),
            "gpuspec20", Map.of(Policies.FGD, 94.84),
            "gpuspec25", Map.of(Policies.FGD, 94.74),
            "gpuspec33", Map.of(Policies.FGD, 94.55));

    static Double published(String trace, Policies p) {
        Policies key = p == Policies.DEFAULT ? Policies.FGD : p; // the default's yardstick is the paper's FGD
        var m = PUBLISHED.get(trace);
        return m == null ? null : m.get(key);
    }

    private static String pct(double r) { return String.format(Locale.ROOT, "%.2f", 100 * r); }

    public static String table(Experiment.Outcome o) {
        StringBuilder sb = new StringBuilder();
        sb.append(String.format(Locale.ROOT, "%-12s %-16s %5s %8s %6s %8s %8s %10s %7s%n",
                "trace", "policy", "runs", "mean%", "sd", "min%", "max%", "published", "diff"));
        for (Experiment.Stats s : o.stats()) {
            Double pub = published(s.trace(), s.policy());
            sb.append(String.format(Locale.ROOT, "%-12s %-16s %5d %8s %6.2f %8s %8s %10s %7s%n", s.trace(), s.policy().cliName, s.runs(),
                    pct(s.mean()), 100 * s.sd(), pct(s.min()), pct(s.max()),
                    pub == null ? "-" : String.format(Locale.ROOT, "%.2f%s", pub, s.policy() == Policies.DEFAULT ? "*" : ""),
                    pub == null ? "-" : String.format(Locale.ROOT, "%+.2f", 100 * s.mean() - pub)));
        }
        sb.append(String.format(Locale.ROOT, "(* the paper's FGD) %d replays in %.1f s on %d thread(s); %s%n",
                o.results().size(), o.wallNanos() / 1e9, o.threads(), o.machine()));
        return sb.toString();
    }

    public static String html(Experiment.Outcome o) {
        StringBuilder sb = new StringBuilder();
        sb.append("<!doctype html><html><head><meta charset=\"utf-8\"><title>mpshare openb trace replay</title>")
          .append("<style>body{font-family:sans-serif;margin:2em;max-width:70em}table{border-collapse:collapse}")
          .append("td,th{border:1px solid #ccc;padding:.25em .6em;text-align:right}th{background:#f4f4f4}</style></head><body>")
          .append("<h1>Trace replay: Alibaba openb (ATC'23)</h1>")
          .append("<p>GPU allocation ratio when the arrived tasks ask 130% of the cluster's GPU capacity; mean over seeds, ")
          .append("with spread; published figures from Weng et al., \"Beware of Fragmentation\" (USENIX ATC'23). ")
          .append(esc(String.format(Locale.ROOT, "%d replays in %.1f s on %d thread(s), %s.", o.results().size(),
                  o.wallNanos() / 1e9, o.threads(), o.machine()))).append("</p>");
        sb.append("<table><tr><th>trace</th><th>policy</th><th>runs</th><th>mean %</th><th>sd</th><th>min %</th><th>max %</th><th>published %</th><th>diff</th></tr>");
        for (Experiment.Stats s : o.stats()) {
            Double pub = published(s.trace(), s.policy());
            sb.append("<tr><td>").append(esc(s.trace())).append("</td><td style=\"text-align:left\">").append(esc(s.policy().label))
              .append("</td><td>").append(s.runs()).append("</td><td>").append(pct(s.mean())).append("</td><td>")
              .append(String.format(Locale.ROOT, "%.2f", 100 * s.sd())).append("</td><td>").append(pct(s.min())).append("</td><td>")
              .append(pct(s.max())).append("</td><td>")
              .append(pub == null ? "-" : String.format(Locale.ROOT, "%.2f%s", pub, s.policy() == Policies.DEFAULT ? " (FGD)" : ""))
              .append("</td><td>").append(pub == null ? "-" : String.format(Locale.ROOT, "%+.2f", 100 * s.mean() - pub)).append("</td></tr>");
        }
        sb.append("</table>");
        List<String> traces = o.stats().stream().map(Experiment.Stats::trace).distinct().toList();
        for (String t : traces) {
            sb.append("<h2>").append(esc(t)).append(": allocation ratio vs arrived workload</h2>");
            sb.append(curves(t, o.stats().stream().filter(s -> s.trace().equals(t)).toList()));
        }
        return sb.append("</body></html>\n").toString();
    }

    /** Mean curves of one trace, one line per policy, with the paper's FGD figure as a reference line (the shared LineChart). */
    static String curves(String trace, List<Experiment.Stats> stats) {
        int steps = stats.getFirst().meanCurve().length - 1;
        double[] x = new double[steps + 1];
        for (int k = 0; k <= steps; k++) x[k] = k;
        LineChart chart = new LineChart(trace + ": GPU allocation ratio vs arrived workload", "arrived GPU workload (% of capacity)", "allocated")
                .percent().smooth().yRange(0, 1);
        for (Experiment.Stats s : stats) chart.series(s.policy().label + " " + pct(s.mean()) + "%", x, s.meanCurve());
        Double fgd = published(trace, Policies.FGD);
        if (fgd != null) chart.reference("paper's FGD " + fgd + "%", fgd / 100);
        // the end of the run, where the policies part: allocated from just under the lowest final ratio,
        // arrived from where every curve is above that
        double low = 1;
        for (Experiment.Stats s : stats) low = Math.min(low, s.meanCurve()[steps]);
        double yMin = Math.max(0, Math.floor(low * 50) / 50 - 0.02);
        int from = 0;
        while (from < steps) {
            boolean above = true;
            for (Experiment.Stats s : stats) above &= s.meanCurve()[from] >= yMin;
            if (above) break;
            from++;
        }
        double[] xz = Arrays.copyOfRange(x, from, steps + 1);
        LineChart zoom = new LineChart(trace + ": the end of the run, zoomed", "arrived GPU workload (% of capacity)", "allocated")
                .percent().smooth().yRange(yMin, 1);
        for (Experiment.Stats s : stats)
            zoom.series(s.policy().label, xz, Arrays.copyOfRange(s.meanCurve(), from, steps + 1));
        if (fgd != null) zoom.reference("paper's FGD " + fgd + "%", fgd / 100);
        return chart.render() + zoom.render();
    }

    static String esc(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }
}
