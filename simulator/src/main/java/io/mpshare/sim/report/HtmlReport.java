package io.mpshare.sim.report;

import io.mpshare.sim.RunResult;
import io.mpshare.sim.Series;
import io.mpshare.sim.Simulation;
import io.mpshare.sim.report.svg.BarChart;
import io.mpshare.sim.report.svg.LineChart;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;

/** The HTML report of {@code mpshare simulate}: headline, table, charts, and what the run was. */
public final class HtmlReport {
    /** Pending-time buckets of the distribution chart: upper bounds in ms (exclusive), last one open. */
    static final long[] BUCKET_MS = {60_000, 600_000, 3_600_000, 4 * 3_600_000L, Long.MAX_VALUE};
    static final List<String> BUCKETS = List.of("< 1 min", "1-10 min", "10-60 min", "1-4 h", "> 4 h");
    private static final int MAX_POINTS = 1_200;

    private HtmlReport() {}

    /**
     * @param workloadLine what the workload was
     * @param facts        extra "what ran" rows (label, value), e.g. the command line and the seed
     */
    public static String render(Simulation.Result r, String workloadLine, List<String[]> facts) {
        var cluster = r.scenario().cluster();
        Html h = new Html("mpshare simulate report");
        h.h1("mpshare simulate");
        h.p("muted", cluster.describe());
        h.p("muted", "workload: " + workloadLine);
        h.p("headline", Summary.headline(r));
        h.p("muted", Summary.extenderDefaultLine(r));
        for (String l : Summary.clusterLines(r)) h.p("muted", l);

        List<String> labels = r.models().stream().map(m -> m.model().label()).toList();
        double[] needed = r.models().stream().mapToDouble(Simulation.ModelResult::gpusNeeded).toArray();
        h.figure(new BarChart("GPUs needed to run the workload without pending", "GPUs", labels).series("GPUs", needed).horizontal(),
                "Peak GPUs in use in a cluster that grows (a node of " + cluster.gpusPerNode() + " GPUs at a time) whenever a pod fits nowhere.");

        h.h2("Summary");
        h.table(Summary.COLUMNS, Summary.rows(r));
        h.p("muted", "\"saves\": 1 - GPUs needed / whole GPU's GPUs needed. All columns but \"GPUs needed\" and \"saves\" come from the " + String.format(Locale.ROOT, "%,d", cluster.gpus())
                + "-GPU cluster, where pods that do not fit wait in a FIFO queue. docs/simulate.md explains every number.");

        h.h2("Over time, on the " + String.format(Locale.ROOT, "%,d", cluster.gpus()) + "-GPU cluster");
        h.figure(lines(r, "GPUs in use", "GPUs", s -> toDouble(s.gpusInUse()), false).reference("cluster: " + cluster.gpus() + " GPUs", cluster.gpus()).render(),
                "GPUs with at least one pod, sampled every " + Fmt.duration(r.models().getFirst().fixed().series().stepMs()) + ".");
        h.figure(lines(r, "Memory utilisation of the GPUs in use", "asked / memory of GPUs in use", Series::utilisation, true).render(),
                "Memory the pods asked for, as a share of the memory of the GPUs they occupy. The context reserve and stranded memory make up much of the rest.");
        h.figure(lines(r, "Pods waiting", "pods in queue", s -> toDouble(s.queued()), false).render(),
                "Pods that arrived but fit nowhere yet, waiting in the FIFO queue.");
        h.figure(lines(r, "Stranded free memory", "GiB", s -> gib(s.strandedMib()), false).render(),
                "Free memory on GPUs in use that the policy cannot give to even the smallest pod of the workload.");

        h.h2("Pending time");
        var dist = new BarChart("Pods that waited, by pending time", "share of placed pods", BUCKETS).percent();
        List<String> onArrival = new ArrayList<>();
        for (var m : r.models()) {
            dist.series(m.model().label(), distribution(m.fixed()));
            RunResult f = m.fixed();
            onArrival.add(m.model().label() + " " + Fmt.percent(f.placed() == 0 ? 1 : 1 - (double) f.waited() / f.placed()));
        }
        h.figure(dist.grouped(), "How long pods waited between arrival and placement, as a share of all placed pods. Placed on arrival: "
                + String.join(", ", onArrival) + ".");

        h.h2("Policies compared");
        List<String[]> models = new ArrayList<>();
        for (var m : r.models()) models.add(new String[]{m.model().label(), m.model().description()
                + (m.model().reserveMib() > 0 ? " Context reserve " + m.model().reserveMib() + " MiB per pod per GPU." : "")});
        h.dl(models);
        List<String[]> rejected = new ArrayList<>();
        for (var m : r.models()) m.fixed().rejectReasons().forEach((why, n) -> rejected.add(new String[]{m.model().label(), n + " pod(s): " + why}));
        if (!rejected.isEmpty()) {
            h.h2("Rejected pods");
            h.dl(rejected);
        }
        h.h2("What ran");
        h.dl(facts);
        return h.render();
    }

    /** Share of placed pods per pending-time bucket. */
    static double[] distribution(RunResult f) {
        double[] out = new double[BUCKET_MS.length];
        for (long w : f.waitsMs()) {
            if (w == 0) continue;
            int b = 0;
            while (w >= BUCKET_MS[b]) b++;
            out[b]++;
        }
        if (f.waitsMs().length > 0) for (int i = 0; i < out.length; i++) out[i] /= f.waitsMs().length;
        return out;
    }

    private static LineChart lines(Simulation.Result r, String title, String yLabel, Function<Series, double[]> y, boolean percent) {
        var c = new LineChart(title, "hours since start", yLabel);
        if (percent) c.percent().yRange(0, 1);
        for (var m : r.models()) {
            Series s = m.fixed().series();
            double[] ys = y.apply(s);
            int stride = Math.max(1, (s.size() + MAX_POINTS - 1) / MAX_POINTS);
            int n = (s.size() + stride - 1) / stride;
            double[] xs = new double[n], yy = new double[n];
            for (int i = 0; i < n; i++) { xs[i] = s.timeMs()[i * stride] / 3_600_000.0; yy[i] = ys[i * stride]; }
            c.series(m.model().label(), xs, yy);
        }
        return c;
    }

    private static double[] toDouble(int[] a) {
        double[] d = new double[a.length];
        for (int i = 0; i < a.length; i++) d[i] = a[i];
        return d;
    }

    private static double[] gib(long[] mib) {
        double[] d = new double[mib.length];
        for (int i = 0; i < mib.length; i++) d[i] = mib[i] / 1024.0;
        return d;
    }
}
