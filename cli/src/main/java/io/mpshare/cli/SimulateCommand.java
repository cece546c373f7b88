package io.mpshare.cli;

import io.mpshare.core.MemoryUnit;
import io.mpshare.core.Names;
import io.mpshare.sim.ClusterShape;
import io.mpshare.sim.Progress;
import io.mpshare.sim.Scenario;
import io.mpshare.sim.Simulation;
import io.mpshare.sim.model.Models;
import io.mpshare.sim.model.SharingModel;
import io.mpshare.sim.report.HtmlReport;
import io.mpshare.sim.report.TextReport;
import io.mpshare.sim.workload.DefaultWorkload;
import io.mpshare.sim.workload.TraceError;
import io.mpshare.sim.workload.TraceException;
import io.mpshare.sim.workload.TraceReader;
import io.mpshare.sim.workload.Workload;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.function.LongSupplier;

/** {@code mpshare simulate}: the real placement core on a simulated cluster; summary on stdout, HTML report on disk. */
@Command(name = "simulate", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Runs mpshare's placement core on a simulated GPU cluster and workload and compares ways of sharing GPUs: "
                + "mpshare fragmentation (the scheduler extender's default), binpack and spread, NVIDIA's equal fixed slices, "
                + "and one whole GPU per pod. Prints a summary and writes an HTML report with charts.",
                "The default workload and every number of the report: docs/simulate.md. "
                        + "With --trace-format openb it replays Alibaba's traces instead (last section).", ""})
public final class SimulateCommand implements Callable<Integer> {
    CommandSpec spec;

    /** picocli's model of this command; its usage message gets the openb replay's options as a last section. */
    @Spec void spec(CommandSpec spec) {
        this.spec = spec;
        ReplayHelpSection.install(spec);
    }

    @Option(names = "--seed", paramLabel = "SEED", description = "Random seed of the built-in workload (default: ${DEFAULT-VALUE}).")
    long seed = 42;

    @Option(names = "--nodes", paramLabel = "N", converter = SimulateConverters.CountConverter.class, description = "Nodes in the cluster (default: ${DEFAULT-VALUE}).")
    int nodes = ClusterShape.DEFAULT.nodes();

    @Option(names = "--gpus-per-node", paramLabel = "N", description = "GPUs per node, 1-64 (default: ${DEFAULT-VALUE}).")
    int gpusPerNode = ClusterShape.DEFAULT.gpusPerNode();

    @Option(names = "--gpu-mib", paramLabel = "MIB", converter = SimulateConverters.MibConverter.class, description = "Memory of each GPU in MiB (default: ${DEFAULT-VALUE}, an H200).")
    long gpuMib = ClusterShape.DEFAULT.gpuMib();

    @ArgGroup(exclusive = true)
    Size size = new Size();

    static final class Size {
        @Option(names = "--pods", paramLabel = "N", converter = SimulateConverters.CountConverter.class, description = "Pods of the built-in workload (default: " + DefaultWorkload.DEFAULT_PODS + ").")
        Integer pods;

        @Option(names = "--duration", paramLabel = "DURATION", converter = SimulateConverters.DurationConverter.class,
                description = "Instead of --pods: draw arrivals for this long, e.g. 12h, 90m, 2d.")
        Long durationMs;
    }

    @Option(names = "--rate", paramLabel = "PODS_PER_HOUR", description = "Mean pod arrivals per hour of the built-in workload (default: ${DEFAULT-VALUE}).")
    double ratePerHour = DefaultWorkload.DEFAULT_RATE_PER_HOUR;

    @Option(names = "--trace", paramLabel = "FILE", description = "Replay a CSV trace instead: " + TraceReader.HEADER + " (seconds; gpu-mem in --unit).")
    Path trace;

    @Option(names = "--unit", paramLabel = "UNIT", converter = SimulateConverters.UnitConverter.class, description = "Unit of gpu-mem in the trace: GiB or MiB (default: GiB).")
    MemoryUnit unit = MemoryUnit.GIB;

    @Option(names = "--policies", split = ",", paramLabel = "POLICY", converter = SimulateConverters.PolicyConverter.class,
            description = "Policies to compare, comma-separated: fragmentation (the scheduler extender's default; evaluates every node for every pod), "
                    + "binpack, spread, slices, whole (default: all).")
    List<String> policies = new ArrayList<>(Models.IDS);

    @Option(names = "--slices", paramLabel = "K", description = "Slices per GPU for the fixed-slices baseline, 1-100 (default: ${DEFAULT-VALUE}).")
    int slices = Models.DEFAULT_SLICES;

    @Option(names = "--reserve-mib", paramLabel = "MIB", description = "CUDA context reserve charged per pod per GPU by the sharing policies (default: ${DEFAULT-VALUE}).")
    long reserveMib = Names.DEFAULT_CONTEXT_RESERVE_MIB;

    @Option(names = "--backfill", paramLabel = "N", description = "Pods behind a waiting queue head that may be tried each pass; 0 for strict FIFO (default: ${DEFAULT-VALUE}).")
    int backfill = Scenario.DEFAULT_BACKFILL;

    @Option(names = "--tenants", paramLabel = "N", description = "Tenants the pods belong to, each in an MPS fault domain of its own (tenant kind):"
            + " placement prefers GPUs where a pod's domain already runs, as the extender does, and the report counts MPS daemons per GPU (default: ${DEFAULT-VALUE}: one daemon per GPU).")
    int tenants = 1;

    @Option(names = "--threads", paramLabel = "N", description = "Runs in parallel (default: the number of CPUs).")
    int threads = Runtime.getRuntime().availableProcessors();

    @Option(names = "--out", paramLabel = "FILE", description = "Where to write the HTML report (default: ${DEFAULT-VALUE}).")
    Path out = Path.of("mpshare-report.html");

    @Option(names = "--quiet", description = "No progress on stderr.")
    boolean quiet;

    /** Only the openb replay has seeds: given here, it means --trace-format openb was left out. */
    @Option(names = "--seeds", hidden = true)
    String replaySeeds;

    private final LongSupplier nanoTime;

    public SimulateCommand() { this(System::nanoTime); }

    SimulateCommand(LongSupplier nanoTime) { this.nanoTime = nanoTime; }

    @Override public Integer call() {
        validate();
        PrintWriter stdout = spec.commandLine().getOut();
        PrintWriter stderr = spec.commandLine().getErr();
        Workload workload;
        try {
            workload = workload();
        } catch (TraceException e) {
            stderr.println("mpshare simulate: " + trace + " has " + e.errors().size() + " bad row(s); nothing was simulated:");
            int shown = 0;
            for (TraceError err : e.errors()) {
                if (++shown > 50) { stderr.println("  ... and " + (e.errors().size() - 50) + " more"); break; }
                stderr.println("  " + trace + ":" + err);
            }
            stderr.flush();
            return 1;
        } catch (IOException e) {
            throw CliFailure.failed("cannot read " + trace + ": " + e.getMessage());
        }
        var cluster = new ClusterShape(nodes, gpusPerNode, gpuMib, gpuMib == ClusterShape.H200_MIB ? "NVIDIA H200" : "GPU");
        var scenario = new Scenario(cluster, workload, backfill, tenants);
        List<SharingModel> models = Models.of(policies, reserveMib, slices, workload);
        long start = nanoTime.getAsLong();
        Simulation.Result result = Simulation.run(scenario, models, quiet ? Progress.NONE : new ProgressPrinter(stderr, nanoTime), threads);
        double seconds = (nanoTime.getAsLong() - start) / 1e9;
        TextReport.write(result, workload.description(), stdout);
        List<String[]> facts = List.of(
                new String[]{"command", "mpshare " + String.join(" ", spec.commandLine().getParseResult().originalArgs())},
                new String[]{"workload", workload.description()},
                new String[]{"queue", backfill == 0 ? "strict FIFO" : "FIFO with backfill of up to " + backfill + " pods behind the head"},
                new String[]{"context reserve", reserveMib + " MiB per pod per GPU (sharing policies)"},
                new String[]{"tenants", tenants == 1 ? "one (one MPS daemon per GPU)" : tenants + ", each in a tenant fault domain (an MPS daemon per tenant per GPU)"},
                new String[]{"simulated", String.format(Locale.ROOT, "%,d pods, %d runs in %.1f s", workload.size(), models.size() * 2, seconds)});
        try {
            Path parent = out.toAbsolutePath().getParent();
            if (parent != null) Files.createDirectories(parent);
            Files.writeString(out, HtmlReport.render(result, workload.description(), facts), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw CliFailure.failed("cannot write the report to " + out + ": " + e.getMessage());
        }
        stdout.println();
        stdout.printf(Locale.ROOT, "report: %s  (simulated in %.1f s)%n", out.toAbsolutePath(), seconds);
        stdout.flush();
        return 0;
    }

    private void validate() {
        var cl = spec.commandLine();
        if (replaySeeds != null) throw new ParameterException(cl, "--seeds belongs to the openb trace replay: add --trace-format openb (see --help)");
        if (nodes < 1 || nodes > 100_000) throw new ParameterException(cl, "--nodes must be 1-100000, got " + nodes);
        if (gpusPerNode < 1 || gpusPerNode > 64) throw new ParameterException(cl, "--gpus-per-node must be 1-64, got " + gpusPerNode);
        if (gpuMib < 1024 || gpuMib > (1L << 30)) throw new ParameterException(cl, "--gpu-mib must be 1024-1073741824, got " + gpuMib);
        if (size.pods != null && (size.pods < 1 || size.pods > 10_000_000)) throw new ParameterException(cl, "--pods must be 1-10000000, got " + size.pods);
        if (!(ratePerHour > 0) || ratePerHour > 1e9) throw new ParameterException(cl, "--rate must be a positive number of pods per hour, got " + ratePerHour);
        if (slices < 1 || slices > 100) throw new ParameterException(cl, "--slices must be 1-100, got " + slices);
        if (reserveMib < 0 || reserveMib >= gpuMib) throw new ParameterException(cl, "--reserve-mib must be 0 or more and below the GPU's memory, got " + reserveMib);
        if (backfill < 0) throw new ParameterException(cl, "--backfill must be >= 0, got " + backfill);
        if (tenants < 1 || tenants > Scenario.MAX_TENANTS) throw new ParameterException(cl, "--tenants must be 1-" + Scenario.MAX_TENANTS + ", got " + tenants);
        if (threads < 1 || threads > 256) throw new ParameterException(cl, "--threads must be 1-256, got " + threads);
        if (policies.isEmpty()) throw new ParameterException(cl, "--policies needs at least one of " + String.join(", ", Models.ALL));
        if (trace != null && (size.pods != null || size.durationMs != null))
            throw new ParameterException(cl, "--trace replays the file's pods: leave out --pods and --duration");
        if (trace != null && !Files.isReadable(trace)) throw new ParameterException(cl, "--trace " + trace + ": no such readable file");
    }

    private Workload workload() throws IOException, TraceException {
        if (trace != null) {
            try (var r = Files.newBufferedReader(trace, StandardCharsets.UTF_8)) {
                return new TraceReader(unit).read(trace.toString(), r);
            }
        }
        var ws = size.durationMs != null ? new DefaultWorkload.Spec(seed, 0, size.durationMs, ratePerHour)
                : DefaultWorkload.Spec.ofPods(seed, size.pods != null ? size.pods : DefaultWorkload.DEFAULT_PODS, ratePerHour);
        return DefaultWorkload.generate(ws);
    }

    /** Progress on stderr: nothing for the first second, then at most one line a second with each run's share done. */
    static final class ProgressPrinter implements Progress {
        private final PrintWriter err;
        private final LongSupplier nanoTime;
        private final long start;
        private long last;
        private final Map<String, Double> done = new LinkedHashMap<>();

        ProgressPrinter(PrintWriter err, LongSupplier nanoTime) {
            this.err = err;
            this.nanoTime = nanoTime;
            this.start = nanoTime.getAsLong();
            this.last = start;
        }

        @Override public synchronized void update(String run, long d, long total) {
            done.put(run, total == 0 ? 1 : (double) d / total);
            long now = nanoTime.getAsLong();
            if (now - start < 1_000_000_000L || now - last < 1_000_000_000L) return;
            last = now;
            StringBuilder b = new StringBuilder();
            done.forEach((name, f) -> b.append(b.isEmpty() ? "" : ", ").append(name).append(' ').append(f >= 1 ? "done" : Math.round(f * 100) + "%"));
            err.printf(Locale.ROOT, "simulate (%.0f s): %s%n", (now - start) / 1e9, b);
            err.flush();
        }
    }
}
