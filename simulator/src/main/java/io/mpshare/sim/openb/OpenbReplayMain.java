package io.mpshare.sim.openb;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The openb replay without the CLI: {@code java -cp ... io.mpshare.sim.openb.OpenbReplayMain --nodes N.csv
 * --pods P.csv [--pods P2.csv] [--seeds 42-51] [--policies all] [--threads 2] [--gpu-mib '*=32768']
 * [--report out.html]}. {@code mpshare simulate --trace-format openb} calls {@link #run} with the same options.
 */
public final class OpenbReplayMain {
    private OpenbReplayMain() {}

    /** The options of an openb replay. */
    public record Options(Path nodes, List<Path> pods, List<Long> seeds, List<Policies> policies, int threads,
                          List<String> gpuMib, double stopAt, Path report) {}

    public static void main(String[] args) throws IOException {
        Path nodes = null, report = null;
        List<Path> pods = new ArrayList<>();
        List<String> gpuMib = new ArrayList<>();
        String seeds = "42-51", policies = "all";
        int threads = Runtime.getRuntime().availableProcessors();
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            String v = i + 1 < args.length ? args[i + 1] : null;
            if (v == null) throw new IllegalArgumentException(a + " needs a value");
            switch (a) {
                case "--nodes" -> nodes = Path.of(v);
                case "--pods" -> pods.add(Path.of(v));
                case "--seeds" -> seeds = v;
                case "--policies" -> policies = v;
                case "--threads" -> threads = Integer.parseInt(v);
                case "--gpu-mib" -> gpuMib.add(v);
                case "--report" -> report = Path.of(v);
                default -> throw new IllegalArgumentException("unknown option " + a);
            }
            i++;
        }
        if (nodes == null || pods.isEmpty()) throw new IllegalArgumentException("--nodes and --pods are required");
        run(new Options(nodes, pods, parseSeeds(seeds), Policies.parse(policies), threads, gpuMib, 1.30, report), System.out);
    }

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
    public static Experiment.Outcome run(Options o, java.io.PrintStream out) throws IOException {
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
