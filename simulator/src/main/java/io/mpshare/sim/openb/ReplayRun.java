package io.mpshare.sim.openb;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * One openb comparison: the traces replayed under every policy and seed, the table printed, the HTML report written.
 * {@code mpshare simulate --trace-format openb} turns its flags into {@link Options} and calls {@link #run}.
 */
public final class ReplayRun {
    private ReplayRun() {}

    /** The options of an openb replay. */
    public record Options(Path nodes, List<Path> pods, List<Long> seeds, List<Policies> policies, int threads,
                          List<String> gpuMib, double stopAt, Path report) {}

    /** "42-51" or "42,43,50". */
    public static List<Long> parseSeeds(String s) {
        List<Long> out = new ArrayList<>();
        for (String part : s.split(",")) {
            part = part.strip();
            int dash = part.indexOf('-', 1);
            if (dash > 0) {
                long a = Long.parseLong(part.substring(0, dash).strip()), b = Long.parseLong(part.substring(dash + 1).strip());
                if (b < a || b - a > 10_000) throw new IllegalArgumentException("bad seed range " + part);
                for (long x = a; x <= b; x++) out.add(x);
            } else if (!part.isEmpty()) out.add(Long.parseLong(part));
        }
        if (out.isEmpty()) throw new IllegalArgumentException("no seeds in '" + s + "'");
        return out;
    }

    /** Runs the comparison, prints the table, writes the HTML report when asked; returns the outcome. */
    public static Experiment.Outcome run(Options o, PrintStream out) throws IOException {
        GpuModels models = new GpuModels();
        for (String g : o.gpuMib()) models.with(g);
        List<OpenbTrace.Node> nodes = OpenbTrace.readNodes(o.nodes());
        List<Experiment.Trace> traces = new ArrayList<>();
        for (Path p : o.pods()) traces.add(new Experiment.Trace(traceName(p), OpenbTrace.readTasks(p)));
        Experiment.Outcome outcome = Experiment.run(nodes, models, traces, o.policies(), o.seeds(), o.threads(), o.stopAt());
        out.print(ReplayReport.table(outcome));
        if (o.report() != null) {
            Files.writeString(o.report(), ReplayReport.html(outcome));
            out.println("report: " + o.report());
        }
        return outcome;
    }

    /** openb_pod_list_default.csv → default. */
    static String traceName(Path p) {
        String f = p.getFileName().toString().replaceFirst("\\.csv$", "");
        return f.startsWith("openb_pod_list_") ? f.substring("openb_pod_list_".length()) : f;
    }
}
