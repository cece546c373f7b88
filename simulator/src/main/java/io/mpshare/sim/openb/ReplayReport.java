package io.mpshare.sim.openb;

import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Text table and self-contained HTML report (inline SVG, no scripts) of an openb comparison, next to the
 * figures the paper published for the same traces (shared/traces/README.md).
 */
public final class ReplayReport {
    private ReplayReport() {}

    /** Published GPU allocation ratios (%), Weng et al. ATC'23, by trace then policy. */
    static final Map<String, Map<Policies, Double>> PUBLISHED = Map.of(
            "default", Map.of(Policies.RANDOM, 87.47, Policies.GPUPACKING, 92.00, Policies.BESTFIT, 93.08, Policies.FGD, 95.39),
            "gpushare100", Map.of(Policies.RANDOM, 79.44, Policies.GPUPACKING, 82.57, Policies.BESTFIT, 85.01, Policies.FGD, 86.90),
            "multigpu50", Map.of(Policies.RANDOM, 90.27, Policies.GPUPACKING, 96.18, Policies.BESTFIT, 95.74, Policies.FGD, 97.18));

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

    private static final String[] COLOURS = {"#7f7f7f", "#1f77b4", "#2ca02c", "#ff7f0e", "#d62728"};

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
            sb.append(curves(o.stats().stream().filter(s -> s.trace().equals(t)).toList()));
        }
        return sb.append("</body></html>\n").toString();
    }

    /** Mean curves of one trace, one line per policy, as an inline SVG. */
    static String curves(List<Experiment.Stats> stats) {
        int w = 720, h = 360, left = 50, right = 170, top = 10, bottom = 40;
        int pw = w - left - right, ph = h - top - bottom;
        int steps = stats.getFirst().meanCurve().length - 1;
        StringBuilder sb = new StringBuilder();
        sb.append("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"").append(w).append("\" height=\"").append(h)
          .append("\" font-family=\"sans-serif\" font-size=\"11\">");
        sb.append("<rect x=\"").append(left).append("\" y=\"").append(top).append("\" width=\"").append(pw).append("\" height=\"").append(ph)
          .append("\" fill=\"none\" stroke=\"#999\"/>");
        for (int y = 0; y <= 100; y += 20) {
            double py = top + ph - ph * y / 100.0;
            sb.append(String.format(Locale.ROOT, "<line x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#eee\"/><text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%d%%</text>",
                    left, left + pw, py, py, left - 4, py + 4, y));
        }
        for (int x = 0; x <= steps; x += 10) {
            double px = left + pw * x / (double) steps;
            sb.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%d%%</text>", px, top + ph + 14, x));
        }
        sb.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">arrived GPU workload (%% of capacity)</text>",
                left + pw / 2, h - 6));
        for (int i = 0; i < stats.size(); i++) {
            Experiment.Stats s = stats.get(i);
            String colour = COLOURS[s.policy().ordinal() % COLOURS.length];
            StringBuilder pts = new StringBuilder();
            for (int k = 0; k <= steps; k++)
                pts.append(String.format(Locale.ROOT, "%.1f,%.1f ", left + pw * k / (double) steps, top + ph - ph * s.meanCurve()[k]));
            sb.append("<polyline fill=\"none\" stroke-width=\"1.5\" stroke=\"").append(colour).append("\" points=\"").append(pts).append("\"/>");
            int ly = top + 14 + 16 * i;
            sb.append(String.format(Locale.ROOT, "<line x1=\"%d\" x2=\"%d\" y1=\"%d\" y2=\"%d\" stroke=\"%s\" stroke-width=\"2\"/><text x=\"%d\" y=\"%d\">%s %s%%</text>",
                    left + pw + 10, left + pw + 30, ly - 4, ly - 4, colour, left + pw + 34, ly, esc(s.policy().label), pct(s.mean())));
        }
        return sb.append("</svg>").toString();
    }

    static String esc(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }
}
