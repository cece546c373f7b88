package io.mpshare.bench.openb;

import io.mpshare.sim.openb.Experiment;
import io.mpshare.sim.openb.GpuModels;
import io.mpshare.sim.openb.OpenbTrace;
import io.mpshare.sim.openb.Policies;
import io.mpshare.sim.openb.Replay;
import io.mpshare.sim.openb.ReplayRun;
import io.mpshare.sim.openb.variants.TraceVariants;
import io.mpshare.sim.openb.variants.Variant;

import com.sun.management.OperatingSystemMXBean;
import java.io.IOException;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Research entry point (bench/run-families.sh): holds mpshare's default to the paper's FGD on every trace family:
 * {@code java -cp ... io.mpshare.bench.openb.FamiliesMain --nodes N.csv --base openb_pod_list_default.csv [--pods
 * P.csv ...] [--variants paper|gpushare40,cpu200] [--variant-seeds 1-3] [--seeds 42-51]
 * [--policies default,fgd,bestfit,random] [--threads 1] [--gpu-mib '*=32768']}. Each variant is generated
 * from the base trace once per variant seed ({@link TraceVariants}); every (trace, variant seed) is replayed
 * with every arrival seed and policy. Per trace it prints each policy's mean and, for default − FGD on the
 * same arrivals, the mean and the worst (variant seed, arrival seed); then wall and process CPU time.
 */
public final class FamiliesMain {
    private FamiliesMain() {}

    /** One trace's figures over its variant seeds × arrival seeds. */
    public record Row(String trace, int runs, Map<String, Double> meanByPolicy, double meanGap, double worstGap, String worstAt) {}

    public static void main(String[] args) throws IOException {
        try {
            run(args);
        } catch (IllegalArgumentException e) { // bad options or a bad trace row: one line, no stack trace
            System.err.println("families: " + e.getMessage());
            System.exit(2);
        } catch (NoSuchFileException e) {
            System.err.println("families: no such file: " + e.getFile() + "; give the openb CSV files with --nodes and --base");
            System.exit(2);
        }
    }

    static void run(String[] args) throws IOException {
        Map<String, String> o = new HashMap<>(Map.of("--variants", "paper", "--variant-seeds", "1-3", "--seeds", "42-51",
                "--policies", "default,fgd,bestfit,random", "--threads", "1"));
        List<Path> pods = new ArrayList<>();
        List<String> gpuMib = new ArrayList<>();
        for (int i = 0; i < args.length; i += 2) {
            if (i + 1 >= args.length) throw new IllegalArgumentException(args[i] + " needs a value");
            switch (args[i]) {
                case "--pods" -> pods.add(Path.of(args[i + 1]));
                case "--gpu-mib" -> gpuMib.add(args[i + 1]);
                case "--nodes", "--base", "--variants", "--variant-seeds", "--seeds", "--policies", "--threads" -> o.put(args[i], args[i + 1]);
                default -> throw new IllegalArgumentException("unknown option " + args[i] + "; see the class comment of FamiliesMain");
            }
        }
        if (!o.containsKey("--nodes") || !o.containsKey("--base")) throw new IllegalArgumentException("--nodes and --base are required");
        if (gpuMib.isEmpty()) gpuMib.add("*=32768");
        GpuModels models = new GpuModels();
        for (String g : gpuMib) models.with(g);
        List<OpenbTrace.Node> nodes = OpenbTrace.readNodes(Path.of(o.get("--nodes")));
        List<OpenbTrace.Task> base = OpenbTrace.readTasks(Path.of(o.get("--base")));
        List<Experiment.Trace> traces = new ArrayList<>();
        traces.add(new Experiment.Trace("default", base));
        for (Path p : pods) traces.add(new Experiment.Trace(name(p), OpenbTrace.readTasks(p)));
        List<String> variants = o.get("--variants").equals("paper") ? Variant.PAPER_TABLE : List.of(o.get("--variants").split(","));
        if (o.get("--variants").equals("none")) variants = List.of();
        for (String v : variants)
            for (long vs : ReplayRun.parseSeeds(o.get("--variant-seeds")))
                traces.add(new Experiment.Trace(v + "#" + vs, TraceVariants.generate(base, nodes, Variant.parse(v), vs)));
        long cpu0 = cpuNanos();
        Experiment.Outcome out = Experiment.run(nodes, models, traces, Policies.parse(o.get("--policies")),
                ReplayRun.parseSeeds(o.get("--seeds")), Integer.parseInt(o.get("--threads")), 1.30);
        long cpu = cpuNanos() - cpu0;
        print(rows(out.results()), System.out);
        System.out.printf(Locale.ROOT, "%d replays, %d traces; wall %.1f s, process CPU %.1f s, %d thread(s), load average %.2f, %s%n",
                out.results().size(), traces.size(), out.wallNanos() / 1e9, cpu / 1e9, out.threads(),
                ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage(), out.machine());
    }

    private static long cpuNanos() {
        return ManagementFactory.getOperatingSystemMXBean() instanceof OperatingSystemMXBean os ? os.getProcessCpuTime() : -1;
    }

    private static String name(Path p) {
        String f = p.getFileName().toString().replaceFirst("\\.csv$", "");
        return f.startsWith("openb_pod_list_") ? f.substring("openb_pod_list_".length()) : f;
    }

    /** Per trace (variant seeds pooled under the variant's name): policy means, and default − FGD on the same arrivals. */
    public static List<Row> rows(List<Replay.Result> results) {
        Map<String, Map<String, List<Double>>> byTrace = new LinkedHashMap<>();
        Map<String, Map<String, Double>> defaultAt = new LinkedHashMap<>(), fgdAt = new LinkedHashMap<>();
        for (Replay.Result r : results) {
            String trace = r.trace().replaceFirst("#.*$", "");
            byTrace.computeIfAbsent(trace, k -> new LinkedHashMap<>()).computeIfAbsent(r.policy(), k -> new ArrayList<>()).add(r.ratio());
            String at = r.trace() + "/" + r.seed();
            if (r.policy().equals(Policies.DEFAULT.cliName)) defaultAt.computeIfAbsent(trace, k -> new LinkedHashMap<>()).put(at, r.ratio());
            if (r.policy().equals(Policies.FGD.cliName)) fgdAt.computeIfAbsent(trace, k -> new LinkedHashMap<>()).put(at, r.ratio());
        }
        List<Row> rows = new ArrayList<>();
        byTrace.forEach((trace, pol) -> {
            Map<String, Double> means = new LinkedHashMap<>();
            pol.forEach((p, v) -> means.put(p, v.stream().mapToDouble(Double::doubleValue).average().orElse(Double.NaN)));
            double sum = 0, worst = Double.POSITIVE_INFINITY;
            String worstAt = "-";
            int n = 0;
            for (var e : defaultAt.getOrDefault(trace, Map.of()).entrySet()) {
                Double f = fgdAt.getOrDefault(trace, Map.of()).get(e.getKey());
                if (f == null) continue;
                double gap = e.getValue() - f;
                sum += gap;
                n++;
                if (gap < worst) { worst = gap; worstAt = e.getKey(); }
            }
            int runs = pol.values().stream().mapToInt(List::size).max().orElse(0);
            rows.add(new Row(trace, runs, means, n == 0 ? Double.NaN : sum / n, n == 0 ? Double.NaN : worst, worstAt));
        });
        return rows;
    }

    static void print(List<Row> rows, PrintStream out) {
        List<String> policies = rows.isEmpty() ? List.of() : List.copyOf(rows.getFirst().meanByPolicy().keySet());
        StringBuilder h = new StringBuilder(String.format(Locale.ROOT, "%-12s %5s", "trace", "runs"));
        for (String p : policies) h.append(String.format(Locale.ROOT, " %10s", p));
        out.println(h.append(String.format(Locale.ROOT, " %9s %9s  %s", "def-fgd", "worst", "worst at")));
        for (Row r : rows) {
            StringBuilder sb = new StringBuilder(String.format(Locale.ROOT, "%-12s %5d", r.trace(), r.runs()));
            for (String p : policies) sb.append(String.format(Locale.ROOT, " %10.2f", 100 * r.meanByPolicy().getOrDefault(p, Double.NaN)));
            out.println(sb.append(String.format(Locale.ROOT, " %+9.2f %+9.2f  %s", 100 * r.meanGap(), 100 * r.worstGap(), r.worstAt())));
        }
    }
}
